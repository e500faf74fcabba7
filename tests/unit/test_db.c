/*
 * test_db.c -- the store's choice of backend and the PostgreSQL backend's
 * promises that need no server: which strings name a PostgreSQL database,
 * ${VAR} expansion, and that a password never reaches a message, whether
 * it was written in the URI, came from a ${VAR} or from PGPASSWORD.  The
 * backend against a real server is tested end to end (tests/e2e/t_pg*.sh).
 */
#include "unit.h"

#include "db.h"

static void test_is_postgres(void **state)
{
	static const char *const pg[] = {
		"postgresql://u@h/db",
		"postgres://h/db",
		"postgresql:///db?host=/tmp/sock",
		"host=/tmp/sock dbname=bg",
		"dbname=bg",
		"  user = me dbname=bg",
		"service=bench",
		/* Every libpq keyword may come first, the password among them: as
		 * a file name it would be printed, and a file made under it. */
		"password=hunter2 host=db dbname=bg",
		"sslmode=require host=db",
		"target_session_attrs=read-write host=db",
		" postgresql://u:hunter2@h/db",
	};
	static const char *const files[] = {
		"results.db",     "/tmp/x/results.db",     ".benchguard/results.db",
		"hostile=1.db/x", /* not a libpq keyword */
		"dbname.db",      "postgresql:/not-a-uri", "./host=x",
	};
	size_t i;

	(void)state;
	for (i = 0; i < BG_ARRAY_SIZE(pg); i++) {
		assert_true(bg_db_is_postgres(pg[i]));
		assert_true(bg_store_is_url(pg[i]));
	}
	for (i = 0; i < BG_ARRAY_SIZE(files); i++)
		assert_false(bg_db_is_postgres(files[i]));
}

/* Opens `spec` (no server listens there) and returns the message. */
static char *open_fails(const char *spec, int want)
{
	bg_ctx *ctx = NULL;
	bg_store *st = NULL;
	char *msg;

	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_store_open(ctx, spec, &st), want);
	assert_null(st);
	msg = strdup(bg_ctx_error(ctx));
	assert_non_null(msg);
	bg_ctx_free(ctx);
	return msg;
}

static void test_password_never_shown(void **state)
{
	char *msg;

	(void)state;
	unsetenv("PGPASSWORD");
	/* In the URI itself. */
	msg = open_fails("postgresql://bench:s3cr3t-pw@/bench?host=/nonexistent-bg-socket-dir",
	                 BG_EIO);
	assert_null(strstr(msg, "s3cr3t-pw"));
	assert_non_null(strstr(msg, "postgresql://bench@/bench?host=/nonexistent-bg-socket-dir"));
	assert_non_null(strstr(msg, "cannot connect"));
	free(msg);
	/* In the key=value form. */
	msg = open_fails("host=/nonexistent-bg-socket-dir dbname=bench user=bench "
	                 "password=kv-s3cr3t",
	                 BG_EIO);
	assert_null(strstr(msg, "kv-s3cr3t"));
	free(msg);
	/* The password first: still a connection string, not a file's name. */
	msg = open_fails("password=first-s3cr3t host=/nonexistent-bg-socket-dir dbname=bench",
	                 BG_EIO);
	assert_null(strstr(msg, "first-s3cr3t"));
	free(msg);
	/* From a ${VAR}: the name may show, never the value. */
	setenv("BG_TEST_DB_PW", "env-s3cr3t", 1);
	msg = open_fails(
	        "postgresql://bench:${BG_TEST_DB_PW}@/bench?host=/nonexistent-bg-socket-dir",
	        BG_EIO);
	assert_null(strstr(msg, "env-s3cr3t"));
	free(msg);
	unsetenv("BG_TEST_DB_PW");
	/* From PGPASSWORD. */
	setenv("PGPASSWORD", "pgpass-s3cr3t", 1);
	msg = open_fails("postgresql://bench@/bench?host=/nonexistent-bg-socket-dir", BG_EIO);
	assert_null(strstr(msg, "pgpass-s3cr3t"));
	free(msg);
	unsetenv("PGPASSWORD");
}

static void test_bad_strings(void **state)
{
	char *msg;

	(void)state;
	/* An unset ${VAR}: input error naming the variable. */
	unsetenv("BG_TEST_NO_SUCH_VAR");
	msg = open_fails("postgresql://${BG_TEST_NO_SUCH_VAR}@/db", BG_EINPUT);
	assert_non_null(strstr(msg, "BG_TEST_NO_SUCH_VAR"));
	free(msg);
	/* Something libpq cannot read: its words are not echoed. */
	msg = open_fails("postgresql://u:pw-in-bad-uri@/db?nosuchoption=1", BG_EINPUT);
	assert_null(strstr(msg, "pw-in-bad-uri"));
	assert_non_null(strstr(msg, "libpq"));
	free(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_postgres),
		cmocka_unit_test(test_password_never_shown),
		cmocka_unit_test(test_bad_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
