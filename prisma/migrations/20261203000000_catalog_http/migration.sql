-- Catalog format v2: how each provider is called and where each tool's
-- inputs go. Both are nullable: a provider imported from a v1 catalog says
-- neither, and the session service refuses to call it until a v2 import
-- fills them in. The shapes are the contracts' `ProviderHttp` and
-- `ToolParameterMap`, validated by the import; the database only stores them.

-- AlterTable
ALTER TABLE "providers" ADD COLUMN "http" JSONB;

-- AlterTable
ALTER TABLE "mcp_tools" ADD COLUMN "parameters" JSONB;
