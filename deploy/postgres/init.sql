-- Monitor, scale mode: the one-time superuser step (docs/deploy.md, "PostgreSQL").
--
-- The postgres image runs the files in /docker-entrypoint-initdb.d/ once, as
-- the superuser, when it initialises an empty data directory. Outside a
-- container, run the same statements yourself: psql -U postgres -f init.sql
-- (with the password in /run/secrets/monitor_owner_password, or replace the
-- \set line with \set owner_password 'the password').
--
-- monitor_owner owns the schema and runs `monitor migrate`:
--   BYPASSRLS  every table has FORCE ROW LEVEL SECURITY, which binds the
--              owner too; the SECURITY DEFINER functions (token lookup,
--              tenant lookup by name, delivery marking) run as the owner
--              and must see every tenant's rows. Migration 0003 refuses a
--              migrating role that is neither superuser nor BYPASSRLS.
--   CREATEROLE `monitor migrate` creates the role monitor_app, which the
--              monitor serve processes log in as.
-- Nothing else: no SUPERUSER, no CREATEDB.

\set owner_password `cat /run/secrets/monitor_owner_password`
SELECT :'owner_password' <> '' AS owner_password_set \gset
\if :owner_password_set
\else
  DO $$ BEGIN RAISE EXCEPTION 'init.sql: /run/secrets/monitor_owner_password is missing or empty'; END $$;
\endif

CREATE ROLE monitor_owner LOGIN BYPASSRLS CREATEROLE PASSWORD :'owner_password';
CREATE DATABASE monitor OWNER monitor_owner;
