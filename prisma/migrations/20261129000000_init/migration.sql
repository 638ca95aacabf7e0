-- Initial schema. Written by hand to match prisma/schema.prisma; the unique
-- index on mcp_tools uses NULLS NOT DISTINCT (PostgreSQL 15), which the schema
-- language cannot express. gen_random_uuid() is built into PostgreSQL 13+.

-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "vector";

-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateEnum
CREATE TYPE "environment" AS ENUM ('live', 'test');

-- CreateTable
CREATE TABLE "orgs" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "plan" TEXT NOT NULL DEFAULT 'free',
    "quota_monthly_calls" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "orgs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projects" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "environment" "environment" NOT NULL,
    "name" TEXT,
    "prefix" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "providers" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "country" TEXT NOT NULL DEFAULT '*',
    "countries" TEXT[],
    "auth_type" TEXT NOT NULL,
    "self_serve_auth" BOOLEAN NOT NULL,
    "base_urls" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'stable',
    "sandbox_available" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "providers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mcp_tools" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "server_id" TEXT NOT NULL,
    "tool_name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "input_schema" JSONB,
    "http_method" TEXT,
    "endpoint_template" TEXT,
    "project_id" TEXT,
    "description_hash" TEXT NOT NULL,
    "embedding" vector(1536),
    "embedding_model" TEXT,
    "embedded_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mcp_tools_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "connections" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "environment" "environment" NOT NULL,
    "server_id" TEXT NOT NULL,
    "credentials_ciphertext" BYTEA,
    "credentials_key_id" TEXT,
    "status" TEXT NOT NULL DEFAULT 'connected',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "environment" "environment" NOT NULL,
    "user_id" TEXT,
    "servers" TEXT[],
    "metadata" JSONB,
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_active_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "closed_at" TIMESTAMPTZ(3),

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session_tool_calls" (
    "id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "server" TEXT,
    "input" JSONB NOT NULL,
    "output" JSONB,
    "success" BOOLEAN NOT NULL,
    "error" TEXT,
    "duration_ms" INTEGER NOT NULL,
    "called_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_tool_calls_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "projects_org_id_idx" ON "projects"("org_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_project_id_idx" ON "api_keys"("project_id");

-- CreateIndex
CREATE INDEX "providers_name_trgm_idx" ON "providers" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "providers_description_trgm_idx" ON "providers" USING GIN ("description" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "mcp_tools_project_id_idx" ON "mcp_tools"("project_id");

-- CreateIndex
CREATE INDEX "mcp_tools_tool_name_trgm_idx" ON "mcp_tools" USING GIN ("tool_name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "mcp_tools_description_trgm_idx" ON "mcp_tools" USING GIN ("description" gin_trgm_ops);

-- CreateIndex (hand-written: a NULL project_id counts as a value, so each
-- catalog tool name exists once per provider)
CREATE UNIQUE INDEX "mcp_tools_server_id_tool_name_project_id_key" ON "mcp_tools"("server_id", "tool_name", "project_id") NULLS NOT DISTINCT;

-- CreateIndex
CREATE INDEX "connections_server_id_idx" ON "connections"("server_id");

-- CreateIndex
CREATE UNIQUE INDEX "connections_project_id_environment_server_id_key" ON "connections"("project_id", "environment", "server_id");

-- CreateIndex
CREATE INDEX "sessions_project_id_created_at_idx" ON "sessions"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "sessions_status_expires_at_idx" ON "sessions"("status", "expires_at");

-- CreateIndex
CREATE INDEX "session_tool_calls_session_id_called_at_idx" ON "session_tool_calls"("session_id", "called_at");

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mcp_tools" ADD CONSTRAINT "mcp_tools_server_id_fkey" FOREIGN KEY ("server_id") REFERENCES "providers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mcp_tools" ADD CONSTRAINT "mcp_tools_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "connections" ADD CONSTRAINT "connections_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "connections" ADD CONSTRAINT "connections_server_id_fkey" FOREIGN KEY ("server_id") REFERENCES "providers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_tool_calls" ADD CONSTRAINT "session_tool_calls_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
