-- Providers get an owner, and API keys may belong to the deployment instead
-- of a project.
--
-- Providers: a project's import writes providers of its own, so ids are
-- unique per owner (the global catalog, or one project). `owner` is the
-- project id, or '' for the global catalog: a primary key cannot hold a NULL,
-- and foreign keys need a value on both sides. It is derived from
-- `project_id`, which carries the cascade when a project goes. Every existing
-- row stays global.
--
-- Tools name the provider they belong to by (server_id, server_owner). A
-- project's tool hangs off the global provider of that id until the project
-- writes a provider of its own, then off that one; the CHECK keeps a tool
-- from ever hanging off another project's provider.
--
-- Connections no longer reference providers: the provider a connection
-- means is the one its project sees under that id (its own, else the global
-- one), which a foreign key cannot express. The session service checks that
-- the provider exists when it stores a connection.

-- AlterTable
ALTER TABLE "providers" ADD COLUMN "project_id" TEXT,
ADD COLUMN "owner" TEXT GENERATED ALWAYS AS (COALESCE("project_id", '')) STORED;

ALTER TABLE "mcp_tools" ADD COLUMN "server_owner" TEXT NOT NULL DEFAULT '';
ALTER TABLE "mcp_tools" ADD CONSTRAINT "mcp_tools_server_owner_check" CHECK ("server_owner" = '' OR "server_owner" IS NOT DISTINCT FROM "project_id");

-- Swap the keys
ALTER TABLE "mcp_tools" DROP CONSTRAINT "mcp_tools_server_id_fkey";
ALTER TABLE "connections" DROP CONSTRAINT "connections_server_id_fkey";
ALTER TABLE "providers" DROP CONSTRAINT "providers_pkey";
ALTER TABLE "providers" ADD CONSTRAINT "providers_pkey" PRIMARY KEY ("id", "owner");

-- CreateIndex
CREATE INDEX "providers_project_id_idx" ON "providers"("project_id");

-- AddForeignKey
ALTER TABLE "providers" ADD CONSTRAINT "providers_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "mcp_tools" ADD CONSTRAINT "mcp_tools_server_id_server_owner_fkey" FOREIGN KEY ("server_id", "server_owner") REFERENCES "providers"("id", "owner") ON DELETE CASCADE ON UPDATE CASCADE;

-- Operator keys: no project, no environment, and the only keys that may
-- carry the `admin` scope.
ALTER TABLE "api_keys" ALTER COLUMN "project_id" DROP NOT NULL,
ALTER COLUMN "environment" DROP NOT NULL;
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_owner_check" CHECK (("project_id" IS NULL) = ("environment" IS NULL));
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_admin_check" CHECK ("project_id" IS NULL OR NOT ('admin' = ANY ("scopes")));
