-- Operators among tenants (mirrors migrations/postgres/0019_tenant_admin.sql):
-- a tenant marked admin may sign in to the operator console through the
-- bot (/admin, /web), as `monitor admin login-link --admin` lets anyone
-- with the CLI. Only an operator sets the mark (CLI, /v1/admin, /admin).
ALTER TABLE tenants ADD COLUMN admin INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1));
