-- The quota guard of an upload in one round trip (docs/decisions/0030). A job that holds seconds of
-- the user's quota is only written while the plan still has them, with the user's row locked, so two
-- uploads of one user (on two gateways) are decided one after the other, each seeing the other's
-- reservation.
--
-- Called from the statement (or transaction) that writes the reservation; its verdict:
--   'ok'       the seconds are there (the user's row stays locked until that transaction ends);
--   'short'    they are not;
--   'due'      a monthly reset or a scheduled plan change is due: write it down (services/shared/src/server/reset.ts), then ask again;
--   'no-user'  no such account;
--   'no-plan'  `minutes` has no entry for the user's plan (a configuration error, never another plan's limit).
-- `minutes` is the configured monthly minutes of every plan ({"free": 60, …}, from the plan catalogue).
--
-- Why a VOLATILE plpgsql function and not a CTE: in READ COMMITTED each statement of a volatile function
-- takes a new snapshot, so the sum of reservations is read after the lock is granted and sees what the
-- transaction that held it committed. A single plain statement reads its whole snapshot before it waits
-- for the lock, and could let two uploads spend the same minutes.
CREATE FUNCTION "kikitori_quota_verdict"(uid uuid, seconds integer, minutes jsonb, at timestamptz)
RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  u record;
  held integer;
BEGIN
  SELECT "plan"::text AS plan, "seconds_used" AS used, "reset_date", "pending_plan_at"
    INTO u FROM "users" WHERE "id" = uid FOR UPDATE;
  IF NOT FOUND THEN
    RETURN 'no-user';
  END IF;
  IF u."reset_date" <= at OR u."pending_plan_at" <= at THEN
    RETURN 'due';
  END IF;
  IF jsonb_typeof(minutes -> u.plan) IS DISTINCT FROM 'number' THEN
    RETURN 'no-plan';
  END IF;
  SELECT COALESCE(SUM("reserved_seconds"), 0)::integer INTO held FROM "transcription_jobs"
    WHERE "user_id" = uid AND "reserved_seconds" > 0;
  IF (minutes ->> u.plan)::integer * 60 - u.used - held < seconds THEN
    RETURN 'short';
  END IF;
  RETURN 'ok';
END
$$;
