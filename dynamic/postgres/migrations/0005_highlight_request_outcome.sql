-- A highlight request keeps what it did, not an HTTP answer: changed is
-- true when at least one verse was created or recoloured. The service
-- builds the answer from it and the request, which the fingerprint shows is
-- the same on a retry. The answers stored so far say the same by status:
-- 201 created or recoloured, 409 nothing to change. An instance still
-- running a binary that stores answers cannot create highlights once this
-- has run: upgrade every instance together.
ALTER TABLE highlight_requests ADD COLUMN changed boolean;
UPDATE highlight_requests SET changed = (status = 201);
ALTER TABLE highlight_requests
	ALTER COLUMN changed SET NOT NULL,
	DROP COLUMN status,
	DROP COLUMN body;
