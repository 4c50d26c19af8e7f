-- AlterTable
ALTER TABLE "users" ADD COLUMN     "session_version" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "sign_in_failures" (
    "subject" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "actor_id" TEXT,
    "tenant_id" TEXT,
    "count" INTEGER NOT NULL DEFAULT 1,
    "last_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_address" TEXT,

    CONSTRAINT "sign_in_failures_pkey" PRIMARY KEY ("subject","window_start")
);

-- CreateTable
CREATE TABLE "sign_in_address_throttle" (
    "address" TEXT NOT NULL,
    "failed_logins" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sign_in_address_throttle_pkey" PRIMARY KEY ("address")
);

-- CreateIndex
CREATE INDEX "sign_in_failures_window_start_idx" ON "sign_in_failures"("window_start");

-- CreateIndex
CREATE INDEX "sign_in_address_throttle_updated_at_idx" ON "sign_in_address_throttle"("updated_at");

-- Any change of what a session may do ends every session of that user: the JWT carries the
-- version it was issued under and loadActor refuses a different one. In the database, so no
-- writer (users page, scripts, a future service) can forget it. Re-enabling bumps it too, so a
-- cookie from before the disable stays dead. A password rehash on sign-in (same password, new
-- format) sets keyhook.password_rehash for its transaction and leaves other sessions alone.
CREATE FUNCTION keyhook_bump_session_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.role IS DISTINCT FROM OLD.role
     OR NEW.tenant_id IS DISTINCT FROM OLD.tenant_id
     OR NEW.disabled_at IS DISTINCT FROM OLD.disabled_at
     OR (NEW.password_hash IS DISTINCT FROM OLD.password_hash
         AND coalesce(current_setting('keyhook.password_rehash', true), '') <> 'on') THEN
    NEW.session_version := OLD.session_version + 1;
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "users_bump_session_version" BEFORE UPDATE ON "users"
  FOR EACH ROW EXECUTE FUNCTION keyhook_bump_session_version();
