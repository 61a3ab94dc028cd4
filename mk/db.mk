# Local PostgreSQL 15 for development, `make run` and tests. With
# DATABASE_URL set, `make db` just prints it; otherwise scripts/db.sh starts
# (or reuses) a private cluster in .cache/pg and prints its URL.

.PHONY: db db-stop
db:
	@scripts/db.sh

db-stop:
	@scripts/db.sh stop
