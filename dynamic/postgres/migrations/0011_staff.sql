-- The operator's staff (docs/portal.md): accounts the operator marked with
-- `dynamic staff add`, which may move any app between development and live
-- on /developers/staff. Unmarking deletes the row.
CREATE TABLE staff_accounts (
	account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
	marked_at  timestamptz NOT NULL
);
