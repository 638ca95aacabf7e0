-- Connect flows started by codespar_manage_connections connect_start, and
-- shopper profiles saved by save_profile.
--
-- A connect flow is the server half of one connection attempt: the tenant
-- and provider it is for, and for the authorization method the sealed PKCE
-- verifier and OAuth client, and the hash of the nonce its signed `state`
-- carries. The callback spends a flow in one conditional UPDATE (pending →
-- exchanging), so a state works once, on whichever replica gets it first.

-- CreateTable
CREATE TABLE "connect_flows" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "environment" "environment" NOT NULL,
    "server_id" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "session_id" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    -- SHA-256 of the random nonce in the state (authorization only).
    "state_nonce_hash" TEXT,
    -- Sealed JSON {code_verifier, client_id, client_secret} (authorization only).
    "secret_ciphertext" BYTEA,
    "secret_key_id" TEXT,
    "redirect_uri" TEXT,
    "authorization_url" TEXT,
    "return_to" TEXT,
    -- Why a flow failed: an error code, never provider text.
    "error" TEXT,
    "connection_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "connect_flows_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "connect_flows_method_check" CHECK ("method" IN ('authorization', 'credentials')),
    CONSTRAINT "connect_flows_status_check" CHECK ("status" IN ('pending', 'exchanging', 'connected', 'failed'))
);

-- connect_start drops a project's long-expired flows.
CREATE INDEX "connect_flows_project_id_expires_at_idx" ON "connect_flows"("project_id", "expires_at");

-- AddForeignKey
ALTER TABLE "connect_flows" ADD CONSTRAINT "connect_flows_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "shopper_profiles" (
    "project_id" TEXT NOT NULL,
    "environment" "environment" NOT NULL,
    "consumer_id" TEXT NOT NULL,
    "profile" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "shopper_profiles_pkey" PRIMARY KEY ("project_id", "environment", "consumer_id")
);

-- AddForeignKey
ALTER TABLE "shopper_profiles" ADD CONSTRAINT "shopper_profiles_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
