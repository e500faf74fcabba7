/*
 * alert.c -- alerts over HTTP, the only module that uses libcurl: a signed
 * JSON webhook, a Slack incoming-webhook message, and a GitHub pull-request
 * comment or GitLab merge-request note that is found again by a hidden
 * marker and edited in place (one code path; alert_forge says how each
 * forge's REST API spells it).
 *
 * Nothing is sent straight from a verdict: bg_alert_queue writes each alert
 * to the database's outbox, and bg_alert_flush delivers what the outbox
 * holds, so an alert that meets a dead receiver is still there for the next
 * `ci` or `alert flush`.  Each target gets a time budget per flush (its
 * "timeout"); every request, retry and Retry-After wait fits inside it, so a
 * receiver that never answers costs at most that and never the verdict.
 *
 * Secrets (a token, a webhook secret, URLs that are keys themselves, as
 * Slack's are) live only in memory, expanded from ${VAR} at each delivery:
 * the outbox stores the target as a hash of the strings as configured, logs
 * name a webhook's URL without its path, and every message and stored error
 * is scrubbed of them (alert__scrub), a receiver's answer also cut short to
 * one escaped line before it is quoted.
 *
 * A pull request is shared with other people, who can write benchguard's
 * marker too: only a comment by the identity the token posts as, that
 * starts with the marker, is benchguard's to edit (alert__ours).
 *
 * libcurl is not linked: each call that needs it (bg_alert_queue,
 * bg_alert_flush with something to send, bg_alert_test) loads it, and
 * closes it when done (lib/dl.c says why); its functions are called
 * through that call's table, which the targets point to (t->cu).
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* curl.h's type-checking curl_easy_setopt and curl_easy_getinfo are macros
 * that expand to statement expressions, which cannot follow `cu->`; without
 * them they expand to the plain call (through a pointer, nothing is checked
 * either way). */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <json-c/json.h>

#include "internal.h"

#define ALERT_BACKOFF_FIRST 0.5             /* seconds before the first retry */
#define ALERT_BACKOFF_CAP 8.0               /* longest wait between tries */
#define ALERT_MAX_TRIES 8                   /* per request and flush */
#define ALERT_CONNECT_MS 5000L              /* connecting, at most */
#define ALERT_ATTEMPT_MS 15000L             /* one request, at most */
#define ALERT_MARGIN 0.05                   /* s of a budget too few to begin a request in */
#define ALERT_BODY_LIMIT (4 << 20)          /* of an answer, kept; the rest is read and dropped */
#define ALERT_PAGE_SIZE 100                 /* comments a page: the most the forges give */
#define ALERT_FORGE_COMMENTS 5000           /* asked for in one listing, at most */
#define ALERT_KEEP_SECONDS (30 * 24 * 3600) /* delivered entries kept this long */
#define ALERT_USER_AGENT "benchguard/" BG_VERSION

/* ---------------------------------------------------------------- libcurl */

/*
 * The library by its soname, the name of its ABI, which a runtime package
 * installs (Debian's libcurl4): the bare libcurl.so is only there with the
 * development package.  The 4 is the ABI's version since curl 7.16, curl 8
 * included, not curl's own; tests/e2e/t_lazy_libs.sh checks that the
 * libcurl.so these headers came with has it.
 */
#define ALERT_CURL_SONAME "libcurl.so.4"
#define ALERT_CURL_LIBRARY "the HTTP client library alerts are sent with"

/* The libcurl functions used here; their types are the headers'. */
#define ALERT_CURL_FUNCTIONS(X)                                                                    \
	X(curl_easy_cleanup)                                                                       \
	X(curl_easy_escape)                                                                        \
	X(curl_easy_getinfo)                                                                       \
	X(curl_easy_init)                                                                          \
	X(curl_easy_perform)                                                                       \
	X(curl_easy_reset)                                                                         \
	X(curl_easy_setopt)                                                                        \
	X(curl_easy_strerror)                                                                      \
	X(curl_easy_unescape)                                                                      \
	X(curl_free)                                                                               \
	X(curl_getdate)                                                                            \
	X(curl_global_cleanup)                                                                     \
	X(curl_global_init)                                                                        \
	X(curl_slist_append)                                                                       \
	X(curl_slist_free_all)                                                                     \
	X(curl_url)                                                                                \
	X(curl_url_cleanup)                                                                        \
	X(curl_url_get)                                                                            \
	X(curl_url_set)

/* libcurl as one call loaded it. */
typedef struct {
	void *dl;    /* NULL: not loaded */
	int started; /* curl_global_init succeeded */
#define ALERT_CURL_POINTER(f) __typeof__(&f) f;
	ALERT_CURL_FUNCTIONS(ALERT_CURL_POINTER)
#undef ALERT_CURL_POINTER
} alert_curl;

/*
 * Loads libcurl and sets it up, or an error that names it (and how the
 * loader failed).  curl_global_init and curl_global_cleanup are
 * process-wide, but libcurl counts them (and makes them thread-safe since
 * 7.84), so each call has its own pair around its use, as it had when
 * libcurl was linked, and needs no process-wide once of its own.
 */
static int alert__curl_start(bg_ctx *ctx, alert_curl *cu)
{
#define ALERT_CURL_NAME(f) #f,
#define ALERT_CURL_SLOT(f) &cu->f,
	static const char *const names[] = { ALERT_CURL_FUNCTIONS(ALERT_CURL_NAME) };
	void *const slots[] = { ALERT_CURL_FUNCTIONS(ALERT_CURL_SLOT) };
#undef ALERT_CURL_NAME
#undef ALERT_CURL_SLOT
	int err;

	memset(cu, 0, sizeof(*cu));
	if ((err = bg_dl__load(ctx, ALERT_CURL_SONAME, ALERT_CURL_LIBRARY, names, slots,
	                       BG_ARRAY_SIZE(names), &cu->dl)) < 0)
		return err;
	if (cu->curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		bg_dl__close(cu->dl);
		memset(cu, 0, sizeof(*cu));
		return bg_error_set(ctx, BG_ERROR, "cannot start libcurl");
	}
	cu->started = 1;
	return 0;
}

/* Takes one that alert__curl_start failed on, or never saw, if zeroed. */
static void alert__curl_end(alert_curl *cu)
{
	if (cu->started)
		cu->curl_global_cleanup();
	bg_dl__close(cu->dl);
	memset(cu, 0, sizeof(*cu));
}

/* ------------------------------------------------------------ pure parts */

int bg_alert__classify(long status)
{
	if (status >= 200 && status < 300)
		return BG_ALERT__OK;
	if (status == 408 || status == 429 || (status >= 500 && status < 600))
		return BG_ALERT__RETRY;
	return BG_ALERT__REFUSED;
}

static double alert__retry_after(const alert_curl *cu, const char *value, int64_t now)
{
	const char *p;
	time_t t;

	if (!value)
		return -1;
	while (isspace((unsigned char)*value))
		value++;
	if (!*value)
		return -1;
	for (p = value; isdigit((unsigned char)*p); p++)
		;
	if (p > value && (!*p || isspace((unsigned char)*p))) {
		double s = strtod(value, NULL);
		return s > 1e7 ? 1e7 : s;
	}
	/* An HTTP-date; curl_getdate() reads the three forms RFC 9110 allows. */
	t = cu->curl_getdate(value, NULL);
	if (t == (time_t)-1)
		return -1;
	return (int64_t)t > now ? (double)((int64_t)t - now) : 0.0;
}

/* For the unit tests (internal.h): libcurl is loaded for the call. */
double bg_alert__retry_after(const char *value, int64_t now)
{
	alert_curl cu;
	double s;

	if (alert__curl_start(NULL, &cu) < 0)
		return -1;
	s = alert__retry_after(&cu, value, now);
	alert__curl_end(&cu);
	return s;
}

double bg_alert__backoff(int attempt)
{
	double w = ALERT_BACKOFF_FIRST;

	while (--attempt > 0 && w < ALERT_BACKOFF_CAP)
		w *= 2;
	return w < ALERT_BACKOFF_CAP ? w : ALERT_BACKOFF_CAP;
}

static char *alert__redact(const alert_curl *cu, const char *url, int hide_path)
{
	CURLU *u = cu->curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL, *out = NULL;
	bg_buf b = BG_BUF_INIT;

	if (!u || !url || cu->curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    cu->curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    cu->curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK)
		goto cleanup;
	cu->curl_url_get(u, CURLUPART_PORT, &port, 0); /* only when written out */
	cu->curl_url_get(u, CURLUPART_PATH, &path, 0);
	if (bg_buf_printf(&b, "%s://%s%s%s", scheme, host, port ? ":" : "", port ? port : "") < 0)
		goto cleanup;
	if (path && strcmp(path, "/") && *path && bg_buf_puts(&b, hide_path ? "/***" : path) < 0)
		goto cleanup;
	out = bg_buf_detach(&b);
cleanup:
	bg_buf_clear(&b);
	cu->curl_free(scheme);
	cu->curl_free(host);
	cu->curl_free(port);
	cu->curl_free(path);
	cu->curl_url_cleanup(u);
	return out;
}

/* For the unit tests (internal.h): libcurl is loaded for the call. */
char *bg_alert__redact(const char *url, int hide_path)
{
	alert_curl cu;
	char *out;

	if (alert__curl_start(NULL, &cu) < 0)
		return NULL;
	out = alert__redact(&cu, url, hide_path);
	alert__curl_end(&cu);
	return out;
}

/* Does url lie under base (a prefix that ends where a path segment does)? */
static int alert__under(const char *url, const char *base)
{
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	return !strncmp(url, base, n) && (url[n] == '/' || url[n] == '?' || !url[n]);
}

char *bg_alert__next_link(const char *link, const char *base)
{
	const char *p = link;

	/* <url>; rel="next", <url>; rel="last" (RFC 8288) */
	while (p && (p = strchr(p, '<')) != NULL) {
		const char *end = strchr(p, '>'), *params, *stop;
		size_t plen;

		if (!end)
			return NULL;
		params = end + 1;
		stop = strchr(params, '<');
		plen = stop ? (size_t)(stop - params) : strlen(params);
		if ((memmem(params, plen, "rel=\"next\"", 9) ||
		     memmem(params, plen, "rel=next", 8))) {
			char *url = strndup(p + 1, (size_t)(end - p - 1));
			/* The token goes with every request: never to another host. */
			if (url && !alert__under(url, base)) {
				free(url);
				url = NULL;
			}
			return url;
		}
		p = end + 1;
	}
	return NULL;
}

/* A page=N or per_page=N parameter's number, 1 up: -1 when it is none. */
static long long alert__page_number(const char *s, size_t n)
{
	long long v = 0;
	size_t i;

	if (!n || n > 9 || *s == '0')
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* bg_alert__page_url, telling "out of memory" (BG_ENOMEM) from "not so"
 * (0 with *out NULL). */
static int alert__page_url(const char *url, int size, char **out)
{
	const char *q = strchr(url, '?'), *p;
	long long page = 1, per = -1;
	bg_buf b = BG_BUF_INIT;
	char sep = '?';

	*out = NULL;
	if (size < 1 || strchr(url, '#'))
		return 0;
	/* The URL up to its query byte for byte: it stays under api_url. */
	if (bg_buf_put(&b, url, q ? (size_t)(q - url) : strlen(url)) < 0)
		goto nomem;
	for (p = q ? q + 1 : ""; *p; p += *p == '&') {
		size_t n = strcspn(p, "&");
		if (!strncmp(p, "page=", 5)) {
			page = alert__page_number(p + 5, n - 5);
		} else if (!strncmp(p, "per_page=", 9)) {
			per = alert__page_number(p + 9, n - 9);
		} else if (n) {
			if (bg_buf_put(&b, &sep, 1) < 0 || bg_buf_put(&b, p, n) < 0)
				goto nomem;
			sep = '&';
		}
		p += n;
	}
	/* Where the page starts among the comments, on a page boundary of `size`. */
	if (page < 1 || per < 1 || ((page - 1) * per) % size) {
		bg_buf_clear(&b);
		return 0;
	}
	if (bg_buf_printf(&b, "%cper_page=%d&page=%lld", sep, size, (page - 1) * per / size + 1) <
	    0)
		goto nomem;
	*out = bg_buf_detach(&b);
	return *out ? 0 : BG_ENOMEM;
nomem:
	bg_buf_clear(&b);
	return BG_ENOMEM;
}

char *bg_alert__page_url(const char *url, int size)
{
	char *out;

	return alert__page_url(url, size, &out) < 0 ? NULL : out;
}

char *bg_alert__marker(const char *project)
{
	static const char hex[] = "0123456789ABCDEF";
	bg_buf b = BG_BUF_INIT;
	const unsigned char *p;

	if (bg_buf_puts(&b, "<!-- benchguard:") < 0)
		goto nomem;
	/* Anything that could end the comment ("-->") or the line is escaped. */
	for (p = (const unsigned char *)(project ? project : "default"); *p; p++) {
		if (isalnum(*p) || *p == '.' || *p == '_' || *p == '/') {
			if (bg_buf_put(&b, p, 1) < 0)
				goto nomem;
		} else {
			char e[3] = { '%', hex[*p >> 4], hex[*p & 15] };
			if (bg_buf_put(&b, e, 3) < 0)
				goto nomem;
		}
	}
	if (bg_buf_puts(&b, " -->") < 0)
		goto nomem;
	return bg_buf_detach(&b);
nomem:
	bg_buf_clear(&b);
	return NULL;
}

/*
 * Slack's mrkdwn: &, < and > are special in text ("<!channel>" notifies a
 * whole channel), and a backtick ends the code spans names are set in,
 * where nothing can escape it: it becomes a look-alike.  Control
 * characters are shown, not sent (lib/text.c).
 */
static int alert__slack_escape(bg_buf *b, const char *text)
{
	char *shown = bg_text__escaped(BG_ESC_TERM, text ? text : "");
	const char *s;
	int err = shown ? 0 : BG_ENOMEM;

	for (s = shown; s && *s && !err; s++)
		err = *s == '&'   ? bg_buf_puts(b, "&amp;")
		      : *s == '<' ? bg_buf_puts(b, "&lt;")
		      : *s == '>' ? bg_buf_puts(b, "&gt;")
		      : *s == '`' ? bg_buf_puts(b, "\xCB\x8B")
		                  : bg_buf_put(b, s, 1);
	free(shown);
	return err < 0 ? BG_ENOMEM : 0;
}

static int alert__slack_row(bg_buf *b, const bg_verdict_row *r)
{
	double pct = 100.0 * fabs(r->test.change);
	const char *unit = r->unit ? r->unit : "";
	int err = 0;

	if (bg_buf_puts(b, "\n\xE2\x80\xA2 `") < 0 || alert__slack_escape(b, r->series) < 0)
		return BG_ENOMEM;
	if (!isfinite(pct))
		return bg_buf_printf(b, "`: %s", bg_verdict_name(r->verdict));
	err |= bg_buf_printf(b, "`: %.1f%% %s (%.4g ", pct,
	                     r->verdict == BG_VERDICT_REGRESSION ? "worse" : "better",
	                     r->test.base_mean);
	err |= alert__slack_escape(b, unit);
	err |= bg_buf_printf(b, " \xE2\x86\x92 %.4g ", r->test.cur_mean);
	err |= alert__slack_escape(b, unit);
	err |= bg_buf_puts(b, ")");
	return err ? BG_ENOMEM : 0;
}

char *bg_alert__slack_text(const bg_alert_event *ev)
{
	const bg_check_result *res = ev->result;
	size_t nreg = res->count[BG_VERDICT_REGRESSION], nimp = res->count[BG_VERDICT_IMPROVEMENT];
	size_t i, shown = 0, flagged = nreg + nimp;
	bg_buf b = BG_BUF_INIT;
	int err = 0;

	err |= bg_buf_printf(&b, "%s%s *benchguard* `", ev->sample ? "[test alert] " : "",
	                     nreg ? ":rotating_light:" : ":white_check_mark:");
	err |= alert__slack_escape(&b, ev->project ? ev->project : "default");
	if (nreg)
		err |= bg_buf_printf(&b, "`: %zu regression%s", nreg, nreg == 1 ? "" : "s");
	else if (nimp)
		err |= bg_buf_printf(&b, "`: %zu improvement%s", nimp, nimp == 1 ? "" : "s");
	else
		err |= bg_buf_puts(&b, "`: no regression");
	err |= bg_buf_printf(&b, " at `%.12s`", res->sha);
	if (res->branch) {
		err |= bg_buf_puts(&b, " (");
		err |= alert__slack_escape(&b, res->branch);
		err |= bg_buf_puts(&b, ")");
	}
	if (ev->subject) {
		err |= bg_buf_puts(&b, " \xE2\x80\x94 ");
		err |= alert__slack_escape(&b, ev->subject);
	}
	/* Regressions come first in res->rows; a handful is all anyone reads. */
	for (i = 0; i < res->nrows && shown < 5; i++) {
		const bg_verdict_row *r = &res->rows[i];
		if (r->verdict != BG_VERDICT_REGRESSION && r->verdict != BG_VERDICT_IMPROVEMENT)
			continue;
		if (nreg && r->verdict != BG_VERDICT_REGRESSION)
			continue;
		err |= alert__slack_row(&b, r);
		shown++;
	}
	if (flagged > shown && shown)
		err |= bg_buf_printf(&b, "\n\xE2\x80\xA6 and %zu more", flagged - shown);
	if (res->count[BG_VERDICT_FAILED])
		err |= bg_buf_printf(&b, "\n:x: %zu benchmark%s failed",
		                     res->count[BG_VERDICT_FAILED],
		                     res->count[BG_VERDICT_FAILED] == 1 ? "" : "s");
	if (ev->run_url || ev->commit_url)
		err |= bg_buf_puts(&b, "\n");
	if (ev->run_url)
		err |= bg_buf_printf(&b, "<%s|CI run>", ev->run_url);
	if (ev->commit_url)
		err |= bg_buf_printf(&b, "%s<%s|commit>", ev->run_url ? " \xC2\xB7 " : "",
		                     ev->commit_url);
	if (err) {
		bg_buf_clear(&b);
		return NULL;
	}
	return bg_buf_detach(&b);
}

/* ---------------------------------------------------------------- targets */

/* A forge whose pull request gets one comment, edited in place: how its REST
 * API names the comments and takes the token. */
typedef struct {
	const char *kind;
	const char *api;     /* the REST API base unless api_url says */
	const char *project; /* URL segments: project, thread, comments */
	const char *thread;
	const char *comments;
	int comment_in_thread;  /* a comment's URL names its thread too */
	const char *list_query; /* listing: the most per page, oldest first */
	const char *update;     /* the method that edits a comment */
	const char *auth;       /* the token's header, up to the token */
	const char *accept[2];  /* more headers; NULL: none */
	const char *sep;        /* between repo and number, as the forge writes it */
	const char *thread_name;
	int deep_repo;           /* repo may be "group/sub/name" or a project id */
	const char *author;      /* a comment's author: this object of it */
	const char *author_name; /* ... and its name in that, as in GET {api}/user */
	const char *author_id;   /* ... and its numeric id there; NULL: names only */
	/* Whose comments are ours when GET {api}/user is refused; NULL: nobody's. */
	const char *unknown_self;
	/* The longest comment the forge takes, in characters (a byte each at
	 * most): a longer one is refused (422), and the PR would get none. */
	size_t max_body;
} alert_forge;

static const alert_forge alert_forges[] = {
	{ "github",
	  "https://api.github.com",
	  "repos",
	  "issues",
	  "comments",
	  0,
	  "?per_page=100",
	  "PATCH",
	  "Authorization: Bearer ",
	  { "Accept: application/vnd.github+json", "X-GitHub-Api-Version: 2022-11-28" },
	  "#",
	  "pull-request",
	  0,
	  "user",
	  "login",
	  NULL,
	  /* GitHub Actions' GITHUB_TOKEN may not read /user (403) and posts as
	   * this bot: no person or other app can have this login. */
	  "github-actions[bot]",
	  65536 },
	/* A personal or project access token: a CI job token cannot write notes. */
	{ "gitlab",
	  "https://gitlab.com/api/v4",
	  "projects",
	  "merge_requests",
	  "notes",
	  1,
	  "?per_page=100&sort=asc",
	  "PUT",
	  "PRIVATE-TOKEN: ",
	  { NULL, NULL },
	  "!",
	  "merge-request",
	  1,
	  "author",
	  "username",
	  "id",
	  NULL,
	  1000000 },
};

static const alert_forge *alert__forge(const char *kind)
{
	size_t i;

	for (i = 0; kind && i < BG_ARRAY_SIZE(alert_forges); i++)
		if (!strcmp(alert_forges[i].kind, kind))
			return &alert_forges[i];
	return NULL;
}

/* A configured target with its strings expanded: secrets live only here. */
typedef struct {
	const alert_curl *cu; /* the call's libcurl */
	const bg_alert_cfg *cfg;
	const alert_forge *forge; /* NULL: a webhook or Slack */
	int enabled;
	char why[256];                                /* why not enabled */
	char *url, *secret, *token, *repo, *api, *pr; /* expanded; NULL when absent */
	char pr_why[192]; /* why pr is NULL though its ${VAR}s are set */
	char *path;       /* repo as a URL path segment */
	char key[128];    /* kind ":" hash of the strings as written "@" of the project */
	char legacy[96];  /* the key without its project, as older outboxes hold it */
	char *label;      /* for messages: no secret */
	double deadline;  /* monotonic seconds; 0: not used yet */
	char **secrets;   /* scrubbed from every message, longest first */
	size_t nsecrets, secrets_cap;
	int self_asked;  /* GET {api}/user was answered (once per flush) */
	char *self;      /* ... the token's user's name there; NULL: not known */
	int64_t self_id; /* ... and GitLab's id of that user; 0: not known */
} alert_target;

static void alert__target_clear(alert_target *t)
{
	size_t i;

	/* Secrets do not linger in freed memory. */
	for (i = 0; i < t->nsecrets; i++) {
		memset(t->secrets[i], 0, strlen(t->secrets[i]));
		free(t->secrets[i]);
	}
	free(t->secrets);
	free(t->self);
	if (t->secret)
		memset(t->secret, 0, strlen(t->secret));
	if (t->token)
		memset(t->token, 0, strlen(t->token));
	if (t->url)
		memset(t->url, 0, strlen(t->url));
	free(t->url);
	free(t->secret);
	free(t->token);
	free(t->repo);
	free(t->path);
	free(t->api);
	free(t->pr);
	free(t->label);
	memset(t, 0, sizeof(*t));
}

/* Expands one string; an unset variable disables the target with the reason. */
static int alert__expand(bg_ctx *ctx, alert_target *t, const char *in, char **out)
{
	bg_saved_error saved;
	int err;

	if (!in)
		return 0;
	bg_ctx__save_error(ctx, &saved);
	err = bg_config_expand(ctx, in, out);
	if (err == BG_ENOTFOUND || err == BG_EINPUT) {
		if (t->enabled)
			snprintf(t->why, sizeof(t->why), "%s", bg_ctx_error(ctx));
		t->enabled = 0;
		bg_ctx__restore_error(ctx, &saved);
		return 0;
	}
	return err;
}

/* The forge's URL of the repository (no pr), of a thread's comments, or of
 * comment `id`, under `api`. */
static char *alert__forge_url(const alert_target *t, const char *api, const char *pr, int64_t id,
                              const char *query)
{
	const alert_forge *f = t->forge;
	bg_buf b = BG_BUF_INIT;
	int err = bg_buf_printf(&b, "%s/%s/%s", api, f->project, t->path);

	if (pr || id)
		err |= bg_buf_printf(&b, "/%s", f->thread);
	if (pr && (!id || f->comment_in_thread))
		err |= bg_buf_printf(&b, "/%s", pr);
	if (pr || id)
		err |= bg_buf_printf(&b, "/%s", f->comments);
	if (id)
		err |= bg_buf_printf(&b, "/%lld", (long long)id);
	if (query)
		err |= bg_buf_puts(&b, query);
	if (err) {
		bg_buf_clear(&b);
		return NULL;
	}
	return bg_buf_detach(&b);
}

/* ---------------------------------------------------------------- secrets */

#define ALERT_SECRET_MIN 4   /* shorter parts of a URL are not keys: "/x", a port */
#define ALERT_SEGMENT_MIN 16 /* a path segment this long is scrubbed on its own */

/* Adds s[0..n) to the strings scrubbed, unless it is too short or known. */
static int alert__secret_add(alert_target *t, const char *s, size_t n, size_t min)
{
	size_t i;

	if (!s || n < min || !n)
		return 0;
	for (i = 0; i < t->nsecrets; i++)
		if (strlen(t->secrets[i]) == n && !memcmp(t->secrets[i], s, n))
			return 0;
	if (bg_grow((void **)&t->secrets, &t->secrets_cap, t->nsecrets, sizeof(char *)) < 0 ||
	    !(t->secrets[t->nsecrets] = strndup(s, n)))
		return BG_ENOMEM;
	t->nsecrets++;
	return 0;
}

/* s as it is, and as a receiver may quote it back: percent-decoded and
 * percent-encoded. */
static int alert__secret_forms(alert_target *t, const char *s, size_t min)
{
	char *dec, *enc;
	int len = 0, err;

	if (!s || strlen(s) > INT_MAX)
		return 0;
	if ((err = alert__secret_add(t, s, strlen(s), min)) < 0)
		return err;
	dec = t->cu->curl_easy_unescape(NULL, s, (int)strlen(s), &len);
	enc = t->cu->curl_easy_escape(NULL, s, (int)strlen(s));
	if (!dec || !enc)
		err = BG_ENOMEM;
	if (!err)
		err = alert__secret_add(t, dec, (size_t)len, min);
	if (!err)
		err = alert__secret_add(t, enc, strlen(enc), min);
	t->cu->curl_free(dec);
	t->cu->curl_free(enc);
	return err;
}

/* "user:password" as an Authorization: Basic header carries it. */
static int alert__secret_basic(alert_target *t, const char *user, const char *password)
{
	static const char b64[] =
	        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	bg_buf in = BG_BUF_INIT, out = BG_BUF_INIT;
	size_t i;
	int err;

	err = bg_buf_printf(&in, "%s:%s", user ? user : "", password);
	for (i = 0; !err && i < in.len; i += 3) {
		const unsigned char *u = (const unsigned char *)in.ptr + i;
		size_t k = in.len - i < 3 ? in.len - i : 3;
		unsigned v = (unsigned)u[0] << 16 | (k > 1 ? (unsigned)u[1] << 8 : 0) |
		             (k > 2 ? u[2] : 0);
		char q[4] = { b64[v >> 18 & 63], b64[v >> 12 & 63], k > 1 ? b64[v >> 6 & 63] : '=',
			      k > 2 ? b64[v & 63] : '=' };
		err = bg_buf_put(&out, q, 4);
	}
	if (!err)
		err = alert__secret_add(t, out.ptr, out.len, ALERT_SECRET_MIN);
	if (in.ptr)
		memset(in.ptr, 0, in.len);
	bg_buf_clear(&in);
	bg_buf_clear(&out);
	return err < 0 ? BG_ENOMEM : 0;
}

/* The parts of a URL that may be keys: userinfo (and its Basic header) and
 * the query; with `path`, the path and its longer segments (a webhook's
 * path is its key at Slack, Discord, Teams and many more). */
static int alert__secret_url(alert_target *t, const char *url, int path)
{
	static const CURLUPart parts[] = { CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_QUERY,
		                           CURLUPART_PATH };
	const alert_curl *cu = t->cu;
	char *got[BG_ARRAY_SIZE(parts)] = { NULL };
	CURLU *u = cu->curl_url();
	size_t i;
	int err = 0;

	if (!u)
		return BG_ENOMEM;
	if (!url || cu->curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK)
		goto cleanup; /* nothing is sent to it either */
	for (i = 0; i < BG_ARRAY_SIZE(parts); i++)
		cu->curl_url_get(u, parts[i], &got[i], 0);
	err |= alert__secret_forms(t, got[1], ALERT_SECRET_MIN);
	if (got[1])
		err |= alert__secret_add(t, got[0], got[0] ? strlen(got[0]) : 0, ALERT_SECRET_MIN);
	err |= alert__secret_forms(t, got[2], ALERT_SECRET_MIN);
	if (got[1]) {
		char *user = NULL, *password = NULL;
		cu->curl_url_get(u, CURLUPART_USER, &user, CURLU_URLDECODE);
		cu->curl_url_get(u, CURLUPART_PASSWORD, &password, CURLU_URLDECODE);
		if (password)
			err |= alert__secret_basic(t, user, password);
		cu->curl_free(user);
		cu->curl_free(password);
	}
	if (path && got[3] && strcmp(got[3], "/")) {
		const char *p = got[3], *seg;
		err |= alert__secret_forms(t, p, ALERT_SECRET_MIN);
		err |= alert__secret_forms(t, p + 1, ALERT_SECRET_MIN);
		for (seg = p; *seg; seg += strcspn(seg, "/")) {
			size_t n;
			seg += *seg == '/';
			n = strcspn(seg, "/");
			err |= alert__secret_add(t, seg, n, ALERT_SEGMENT_MIN);
		}
	}
cleanup:
	for (i = 0; i < BG_ARRAY_SIZE(parts); i++)
		cu->curl_free(got[i]);
	cu->curl_url_cleanup(u);
	return err ? BG_ENOMEM : 0;
}

static int alert__secret_var(void *t, const char *value)
{
	return alert__secret_forms(t, value, ALERT_SECRET_MIN);
}

/* The values of the ${VAR}s in a string as written, but for those the
 * label shows (a host): the same ones lib/config.c hands the context. */
static int alert__secret_vars(alert_target *t, const char *in)
{
	return bg_config__each_secret_var(in, t->label, alert__secret_var, t);
}

/*
 * What alert__scrub takes out of messages: the secret and the token whole;
 * the ${VAR} values of url, secret and token; a webhook's or Slack URL
 * whole, its path, userinfo and query; api_url's userinfo and query.  Not
 * repo, pr nor api_url's host and path: they name what the messages are
 * about, and are no keys.
 */
static int alert__secrets_collect(bg_ctx *ctx, alert_target *t)
{
	const bg_alert_cfg *c = t->cfg;
	int err = 0;

	err |= alert__secret_forms(t, t->secret, 1);
	err |= alert__secret_forms(t, t->token, 1);
	err |= alert__secret_vars(t, c->url);
	err |= alert__secret_vars(t, c->secret);
	err |= alert__secret_vars(t, c->token);
	if (!t->forge && t->url) {
		err |= alert__secret_forms(t, t->url, 1);
		err |= alert__secret_url(t, t->url, 1);
	}
	if (t->forge && t->api)
		err |= alert__secret_url(t, t->api, 0);
	return err ? bg_error_oom(ctx) : 0;
}

/* s with every secret of the target replaced by "[secret]" (a new string,
 * or NULL when out of memory). */
static char *alert__scrub(const alert_target *t, const char *s)
{
	bg_buf b = BG_BUF_INIT;
	int r;

	if (!s)
		s = "";
	r = bg_scrub__list(t ? t->secrets : NULL, t ? t->nsecrets : 0, s, strlen(s), 0, &b);
	return r < 0 ? NULL : r ? bg_buf_detach(&b) : bg_strdup(s);
}

/*
 * Disables the target when an expanded value cannot go into a request as it
 * is: a control character (a secret pasted with its line break would end
 * the headers early, or add a header of its own), or a URL that is not
 * http:// or https:// (the only protocols a request may use).  The value is
 * not shown: it came from the environment.
 */
static void alert__refuse_value(alert_target *t, const char *name, const char *v, int url)
{
	const char *p;

	if (!t->enabled || !v)
		return;
	for (p = v; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(t->why, sizeof(t->why), "%s holds a control character%s", name,
			         *p == '\n' || *p == '\r'
			                 ? " (a line break: a value pasted with its "
			                   "newline?)"
			                 : "");
			t->enabled = 0;
			return;
		}
	}
	if (url && strncasecmp(v, "https://", 8) && strncasecmp(v, "http://", 7)) {
		snprintf(t->why, sizeof(t->why), "%s does not start with https:// or http://",
		         name);
		t->enabled = 0;
	}
}

/* "@" and 16 hex digits of the project's hash: the end of its targets' keys. */
#define ALERT_TAG_SIZE 18
static int alert__project_tag(const char *project, char tag[ALERT_TAG_SIZE])
{
	char hash[65];

	if (bg_sha256_hex(project ? project : "", project ? strlen(project) : 0, hash) < 0)
		return -1;
	snprintf(tag, ALERT_TAG_SIZE, "@%.16s", hash);
	return 0;
}

static int alert__target_init(bg_ctx *ctx, const alert_curl *cu, const bg_alert_cfg *cfg,
                              const char *project, alert_target *t)
{
	bg_saved_error saved;
	char hash[65], ptag[ALERT_TAG_SIZE];
	bg_buf id = BG_BUF_INIT;
	int err;

	memset(t, 0, sizeof(*t));
	t->cu = cu;
	t->cfg = cfg;
	t->forge = alert__forge(cfg->kind);
	t->enabled = 1;
	/* Identity: the strings as written, so a rotated secret URL behind the
	 * same ${VAR} is the same target and gets what is pending. */
	if (bg_buf_printf(&id, "%s\n%s\n%s\n%s", cfg->kind, cfg->url ? cfg->url : "",
	                  cfg->api_url ? cfg->api_url : "", cfg->repo ? cfg->repo : "") < 0)
		return bg_error_oom(ctx);
	err = bg_sha256_hex(id.ptr, id.len, hash);
	bg_buf_clear(&id);
	/* And the project: suites sharing a database may write the same target
	 * ("${SLACK_WEBHOOK_URL}"), each with its own value behind it, and one
	 * suite's pending alert must not go out with another's URL or secret. */
	if (err == 0)
		err = alert__project_tag(project, ptag);
	if (err < 0)
		return bg_error_set(ctx, BG_ERROR, "cannot hash an alert target");
	snprintf(t->legacy, sizeof(t->legacy), "%s:%.32s", cfg->kind, hash);
	snprintf(t->key, sizeof(t->key), "%s%s", t->legacy, ptag);

	if ((err = alert__expand(ctx, t, cfg->url, &t->url)) < 0 ||
	    (err = alert__expand(ctx, t, cfg->secret, &t->secret)) < 0 ||
	    (err = alert__expand(ctx, t, cfg->token, &t->token)) < 0 ||
	    (err = alert__expand(ctx, t, cfg->repo, &t->repo)) < 0 ||
	    (err = alert__expand(ctx, t,
	                         cfg->api_url ? cfg->api_url
	                         : t->forge   ? t->forge->api
	                                      : NULL,
	                         &t->api)) < 0)
		return err;
	alert__refuse_value(t, "url", t->url, 1);
	alert__refuse_value(t, "api_url", t->api, 1);
	alert__refuse_value(t, "token", t->token, 0);
	alert__refuse_value(t, "secret", t->secret, 0);
	alert__refuse_value(t, "repo", t->repo, 0);
	/* The API's paths are appended with their "/": "https://HOST/api/v4/"
	 * would make "/api/v4//projects/...", which the forge does not know. */
	while (t->forge && t->api && strlen(t->api) > 1 && t->api[strlen(t->api) - 1] == '/')
		t->api[strlen(t->api) - 1] = '\0';
	if (t->forge && cfg->pr) {
		/* A missing PR number disables new comments only: what is pending
		 * names its own pull request. */
		bg_ctx__save_error(ctx, &saved);
		err = bg_config_expand(ctx, cfg->pr, &t->pr);
		if (err == BG_ENOTFOUND || err == BG_EINPUT) {
			bg_ctx__restore_error(ctx, &saved);
			t->pr = NULL;
		} else if (err < 0) {
			return err;
		} else if (!bg_config__valid_pr(t->pr)) {
			/* As the loader refuses it written out: "0" or "007" is no
			 * number the forge gave, and past int64 no number at all.
			 * The value is not shown: it came from the environment. */
			snprintf(t->pr_why, sizeof(t->pr_why),
			         "%s is not a %s number (1 to 9223372036854775807, without a "
			         "leading 0)",
			         cfg->pr, t->forge->thread_name);
			free(t->pr);
			t->pr = NULL;
		}
	}
	if (t->enabled && t->repo &&
	    !bg_config__valid_repo(t->repo, t->forge && t->forge->deep_repo)) {
		snprintf(t->why, sizeof(t->why), "repo is not %s",
		         t->forge && t->forge->deep_repo ? "\"group/name\" or a project id"
		                                         : "\"owner/name\"");
		t->enabled = 0;
	}
	if (t->forge) {
		char *api = t->api ? alert__redact(cu, t->api, 0) : NULL;
		int other = api && strcmp(t->api, t->forge->api);
		bg_buf b = BG_BUF_INIT;
		char *path = NULL;

		/* GitLab's project id is the path with its slashes encoded. */
		if (t->repo && t->forge->deep_repo)
			path = cu->curl_easy_escape(NULL, t->repo, 0);
		t->path = path ? strdup(path) : t->repo ? strdup(t->repo) : NULL;
		cu->curl_free(path);
		err = bg_buf_printf(&b, "%s%s%s%s%s", t->repo ? t->repo : "?",
		                    t->pr ? t->forge->sep : "", t->pr ? t->pr : "",
		                    other ? " at " : "", other ? api : "");
		free(api);
		if (err < 0 || (t->repo && !t->path)) {
			bg_buf_clear(&b);
			return bg_error_oom(ctx);
		}
		t->label = bg_buf_detach(&b);
	} else {
		/* Slack's path is its key, and so is many another webhook's: a
		 * host names the target well enough. */
		t->label = t->url ? alert__redact(cu, t->url, 1) : NULL;
		if (t->url && !t->label) {
			if (t->enabled)
				snprintf(t->why, sizeof(t->why), "the url does not parse");
			t->enabled = 0;
		}
		if (!t->label && !(t->label = strdup(cfg->kind)))
			return bg_error_oom(ctx);
	}
	if (!t->label)
		return bg_error_oom(ctx);
	return alert__secrets_collect(ctx, t);
}

/* ------------------------------------------------------------------- HTTP */

typedef struct {
	const char *method; /* GET, POST, PATCH */
	const char *url;
	const char *body; /* NULL: none */
	const char *what; /* the request for logs: no secret */
	const char *uid;  /* the alert's identity, or NULL */
	int sign;         /* webhook: signature headers from the target's secret */
} alert_req;

typedef struct {
	long status;
	bg_buf body;
	double retry_after;   /* seconds; -1: not given */
	char *link;           /* the Link header, or NULL */
	const alert_curl *cu; /* for reading Retry-After's dates */
	int cut;              /* the body was longer than ALERT_BODY_LIMIT: its start */
} alert_resp;

/* What one delivery (one or more requests) came to. */
typedef struct {
	int attempts;
	int status;
	char why[2048];
} alert_tally;

static void alert__resp_reset(alert_resp *r)
{
	r->status = 0;
	bg_buf_clear(&r->body);
	r->retry_after = -1;
	free(r->link);
	r->link = NULL;
	r->cut = 0;
}

static size_t alert__on_body(char *p, size_t size, size_t n, void *data)
{
	alert_resp *r = data;
	size_t len = size * n;

	if (r->cut || r->body.len + len > ALERT_BODY_LIMIT)
		r->cut = 1;
	else if (bg_buf_put(&r->body, p, len) < 0)
		return 0;
	return len;
}

static size_t alert__on_header(char *p, size_t size, size_t n, void *data)
{
	alert_resp *r = data;
	size_t len = size * n, k;
	char *value;

	if (len >= 5 && !strncmp(p, "HTTP/", 5)) { /* a new response (after a 100) */
		r->retry_after = -1;
		free(r->link);
		r->link = NULL;
		return len;
	}
	for (k = 0; k < len && p[k] != ':'; k++)
		;
	if (k == len)
		return len;
	if (!(value = strndup(p + k + 1, len - k - 1)))
		return 0;
	value[strcspn(value, "\r\n")] = '\0';
	if (k == 11 && !strncasecmp(p, "retry-after", 11)) {
		r->retry_after = alert__retry_after(r->cu, value, (int64_t)time(NULL));
	} else if (k == 4 && !strncasecmp(p, "link", 4)) {
		free(r->link);
		r->link = value;
		value = NULL;
	}
	free(value);
	return len;
}

static struct curl_slist *alert__add(const alert_curl *cu, struct curl_slist *h, int *err,
                                     const char *fmt, ...) BG_PRINTF(4, 5);

static struct curl_slist *alert__add(const alert_curl *cu, struct curl_slist *h, int *err,
                                     const char *fmt, ...)
{
	struct curl_slist *n;
	char line[1024];
	va_list ap;

	if (*err)
		return h;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!(n = cu->curl_slist_append(h, line)))
		*err = 1;
	return n ? n : h;
}

/* The headers of one try: the webhook's signatures are made afresh, with
 * this try's timestamp. */
static struct curl_slist *alert__headers(const alert_target *t, const alert_req *req)
{
	struct curl_slist *h = NULL;
	int err = 0;

	h = alert__add(t->cu, h, &err, "User-Agent: %s", ALERT_USER_AGENT);
	h = alert__add(t->cu, h, &err, "Expect:"); /* no 100-continue round trip */
	if (req->body)
		h = alert__add(t->cu, h, &err, "Content-Type: application/json");
	if (t->forge) {
		size_t i;
		for (i = 0; i < BG_ARRAY_SIZE(t->forge->accept) && t->forge->accept[i]; i++)
			h = alert__add(t->cu, h, &err, "%s", t->forge->accept[i]);
		if (t->token)
			h = alert__add(t->cu, h, &err, "%s%s", t->forge->auth, t->token);
	}
	if (req->uid)
		h = alert__add(t->cu, h, &err, "X-Benchguard-Delivery: %s", req->uid);
	if (req->sign && t->secret && req->body) {
		char sig[65], ts[32];
		bg_buf signed_text = BG_BUF_INIT;

		snprintf(ts, sizeof(ts), "%lld", (long long)time(NULL));
		if (bg_hmac_sha256_hex(t->secret, strlen(t->secret), req->body, strlen(req->body),
		                       sig) < 0)
			err = 1;
		h = alert__add(t->cu, h, &err, "X-Benchguard-Signature: sha256=%s", sig);
		h = alert__add(t->cu, h, &err, "X-Benchguard-Timestamp: %s", ts);
		/* The same over "<timestamp>.<body>": a receiver that checks it and
		 * the timestamp's age refuses a replayed request. */
		if (bg_buf_printf(&signed_text, "%s.%s", ts, req->body) < 0 ||
		    bg_hmac_sha256_hex(t->secret, strlen(t->secret), signed_text.ptr,
		                       signed_text.len, sig) < 0)
			err = 1;
		bg_buf_clear(&signed_text);
		h = alert__add(t->cu, h, &err, "X-Benchguard-Timestamp-Signature: sha256=%s", sig);
	}
	if (err) {
		t->cu->curl_slist_free_all(h);
		return NULL;
	}
	return h;
}

/* Ctrl-C ends a request at once, not at its timeout. */
static int alert__on_progress(void *data, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                              curl_off_t ulnow)
{
	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return bg_ctx_cancelled(data) ? 1 : 0;
}

/* One try, within `left` seconds. */
static CURLcode alert__attempt(bg_ctx *ctx, CURL *curl, const alert_target *t, const alert_req *req,
                               alert_resp *resp, double left)
{
	const alert_curl *cu = t->cu;
	struct curl_slist *h = alert__headers(t, req);
	long total = (long)(left * 1000.0), connect;
	CURLcode rc;

	if (!h)
		return CURLE_OUT_OF_MEMORY;
	if (total > ALERT_ATTEMPT_MS)
		total = ALERT_ATTEMPT_MS;
	if (total < 1)
		total = 1;
	connect = total < ALERT_CONNECT_MS ? total : ALERT_CONNECT_MS;
	cu->curl_easy_reset(curl); /* keeps the connection cache */
	cu->curl_easy_setopt(curl, CURLOPT_URL, req->url);
	cu->curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	cu->curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	cu->curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, connect);
	cu->curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, total);
	cu->curl_easy_setopt(curl, CURLOPT_HTTPHEADER, h);
	cu->curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, alert__on_body);
	cu->curl_easy_setopt(curl, CURLOPT_WRITEDATA, resp);
	cu->curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, alert__on_header);
	cu->curl_easy_setopt(curl, CURLOPT_HEADERDATA, resp);
	cu->curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, alert__on_progress);
	cu->curl_easy_setopt(curl, CURLOPT_XFERINFODATA, ctx);
	cu->curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
	/* A redirect would turn a POST into a GET, or carry the token away. */
	cu->curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
	if (req->body) {
		cu->curl_easy_setopt(curl, CURLOPT_POSTFIELDS, req->body);
		cu->curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
		                     (curl_off_t)strlen(req->body));
	}
	if (strcmp(req->method, "GET") && strcmp(req->method, "POST"))
		cu->curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req->method);
	rc = cu->curl_easy_perform(curl);
	/* Also after a transfer that failed once the status line was read (a
	 * body cut short, a timeout while it dripped): 0 when none came. */
	if (cu->curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &resp->status) != CURLE_OK)
		resp->status = 0;
	cu->curl_easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
	cu->curl_slist_free_all(h);
	return rc;
}

/*
 * Transport errors are worth retrying, except those that say the URL itself
 * is wrong.  Not CURLE_UNSUPPORTED_PROTOCOL: a target's scheme is checked
 * before any request (alert__target_init), and libcurl also says so for a
 * garbled status line ("XTTP/1.1 502"), a receiver's passing fault.
 */
static int alert__classify_curl(CURLcode rc)
{
	switch (rc) {
	case CURLE_URL_MALFORMAT:
	case CURLE_NOT_BUILT_IN:
		return BG_ALERT__REFUSED;
	default:
		return BG_ALERT__RETRY;
	}
}

/* Sleeps `s` seconds unless cancelled (Ctrl-C); 0 when slept through. */
static int alert__sleep(bg_ctx *ctx, double s)
{
	double end = bg_now() + s, left;

	while ((left = end - bg_now()) > 0) {
		struct timespec ts;
		if (bg_ctx_cancelled(ctx))
			return -1;
		if (left > 0.1)
			left = 0.1;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(left * 1e9);
		nanosleep(&ts, NULL);
	}
	return bg_ctx_cancelled(ctx) ? -1 : 0;
}

#define ALERT_QUOTE_MAX 160 /* bytes of a receiver's answer quoted in a message */

/* Cuts b to at most max bytes, at a character's start, with "…" after. */
static int alert__cut(bg_buf *b, size_t max)
{
	size_t n;

	if (b->len <= max)
		return 0;
	n = bg_text__char_start(b->ptr, max);
	b->len = n;
	b->ptr[n] = '\0';
	return bg_buf_puts(b, "\xE2\x80\xA6");
}

/*
 * A receiver's answer as a message may quote it: scrubbed of the target's
 * secrets (before it is cut, so no part of one is left), on one line, cut
 * short, its control characters shown rather than sent to a terminal.
 */
static char *alert__quote(const alert_target *t, const char *text)
{
	char *clean = alert__scrub(t, text), *out = NULL;
	bg_buf line = BG_BUF_INIT, shown = BG_BUF_INIT;
	const char *p;
	int space = 0, err = 0;

	if (!clean)
		return NULL;
	for (p = clean; *p && line.len <= ALERT_QUOTE_MAX && !err; p++) {
		if (strchr(" \t\r\n\f\v", *p)) {
			space = line.len > 0;
			continue;
		}
		if (space)
			err |= bg_buf_put(&line, " ", 1);
		space = 0;
		err |= bg_buf_put(&line, p, 1);
	}
	if (!err && line.len)
		err |= alert__cut(&line, ALERT_QUOTE_MAX);
	if (!err && line.len)
		err |= bg_text__escape(&shown, BG_ESC_TERM, line.ptr);
	/* Escapes may make it longer: bounded again. */
	if (!err && shown.len)
		err |= alert__cut(&shown, 4 * ALERT_QUOTE_MAX);
	if (!err)
		out = shown.len ? bg_buf_detach(&shown) : strdup("");
	bg_buf_clear(&line);
	bg_buf_clear(&shown);
	free(clean);
	return out;
}

/* ": " and what a refusal says, from GitHub's or GitLab's {"message"} or
 * {"error"}, or a plain-text answer (Slack's). */
static void alert__answer_note(const alert_target *t, const alert_resp *resp, char *out,
                               size_t size)
{
	static const char *const keys[] = { "message", "error" };
	json_object *o = NULL, *m = NULL;
	const char *text = NULL;
	char *quoted;
	size_t i;

	out[0] = '\0';
	if (!resp->body.len)
		return;
	o = json_tokener_parse(resp->body.ptr);
	for (i = 0; o && !text && i < BG_ARRAY_SIZE(keys); i++)
		if (json_object_is_type(o, json_type_object) &&
		    json_object_object_get_ex(o, keys[i], &m) &&
		    json_object_is_type(m, json_type_string))
			text = json_object_get_string(m);
	if (!o)
		text = resp->body.ptr;
	if (text && (quoted = alert__quote(t, text)) != NULL) {
		if (*quoted)
			snprintf(out, size, ": %s", quoted);
		free(quoted);
	}
	json_object_put(o);
}

/*
 * One request, retried on connection errors, 408, 429 and 5xx with
 * exponential backoff (or the server's Retry-After) while the target's
 * budget lasts; never waits past it.  BG_ALERT__OK with a 2xx answer in
 * *resp, BG_ALERT__RETRY when the budget or the tries ran out (the caller
 * keeps the alert), BG_ALERT__REFUSED for a final no.
 */
static int alert__request(bg_ctx *ctx, CURL *curl, const alert_target *t, const alert_req *req,
                          alert_resp *resp, alert_tally *tally)
{
	int attempt;

	for (attempt = 1;; attempt++) {
		double left = t->deadline - bg_now(), wait;
		char what[160], note[4 * ALERT_QUOTE_MAX + 16];
		CURLcode rc;
		int cls;

		if (bg_ctx_cancelled(ctx)) {
			snprintf(tally->why, sizeof(tally->why), "interrupted");
			return BG_ALERT__RETRY;
		}
		if (left < ALERT_MARGIN) {
			snprintf(tally->why, sizeof(tally->why),
			         "%s: the target's %g s budget is spent", req->what,
			         t->cfg->timeout);
			return BG_ALERT__RETRY;
		}
		alert__resp_reset(resp);
		rc = alert__attempt(ctx, curl, t, req, resp, left);
		tally->attempts++;
		if (rc == CURLE_OUT_OF_MEMORY)
			return bg_error_oom(ctx);
		if (rc == CURLE_OK) {
			tally->status = (int)resp->status;
			cls = bg_alert__classify(resp->status);
			snprintf(what, sizeof(what), "HTTP %ld", resp->status);
		} else if (strcmp(req->method, "GET") &&
		           bg_alert__classify(resp->status) == BG_ALERT__OK) {
			/* A POST or PATCH answered 2xx took effect, whatever became of
			 * the answer's body, which such a request does not read: sent
			 * again, it would be delivered twice. */
			tally->status = (int)resp->status;
			cls = BG_ALERT__OK;
			snprintf(what, sizeof(what), "HTTP %ld (the answer cut short: %s)",
			         resp->status, t->cu->curl_easy_strerror(rc));
		} else {
			cls = alert__classify_curl(rc);
			/* curl's generic text: its error buffer may quote the URL. */
			snprintf(what, sizeof(what), "%s", t->cu->curl_easy_strerror(rc));
		}
		if (cls == BG_ALERT__OK) {
			bg_log(ctx, BG_LOG_DEBUG, "alert %s: %s: try %d: %s", t->cfg->kind,
			       req->what, attempt, what);
			return BG_ALERT__OK;
		}
		alert__answer_note(t, resp, note, sizeof(note));
		snprintf(tally->why, sizeof(tally->why), "%s: %s%s", req->what, what,
		         rc == CURLE_OK ? note : "");
		if (cls == BG_ALERT__REFUSED) {
			bg_log(ctx, BG_LOG_DEBUG, "alert %s: %s: try %d: %s; not retried",
			       t->cfg->kind, req->what, attempt, what);
			return BG_ALERT__REFUSED;
		}
		wait = resp->retry_after >= 0 ? resp->retry_after : bg_alert__backoff(attempt);
		if (attempt >= ALERT_MAX_TRIES || bg_now() + wait > t->deadline - ALERT_MARGIN) {
			bg_log(ctx, BG_LOG_DEBUG, "alert %s: %s: try %d: %s; %s, kept for later",
			       t->cfg->kind, req->what, attempt, what,
			       attempt >= ALERT_MAX_TRIES ? "no tries left"
			                                  : "the next would pass the time budget");
			return BG_ALERT__RETRY;
		}
		bg_log(ctx, BG_LOG_DEBUG, "alert %s: %s: try %d: %s; retrying in %.1f s%s",
		       t->cfg->kind, req->what, attempt, what, wait,
		       resp->retry_after >= 0 ? " (Retry-After)" : "");
		if (alert__sleep(ctx, wait) < 0) {
			snprintf(tally->why, sizeof(tally->why), "interrupted");
			return BG_ALERT__RETRY;
		}
	}
}

/* ------------------------------------------------------------- deliveries */

/* webhook and Slack: one POST of the stored body. */
static int alert__post(bg_ctx *ctx, CURL *curl, const alert_target *t, const bg_outbox_row *row,
                       alert_tally *tally)
{
	alert_resp resp = { 0, BG_BUF_INIT, -1, NULL, t->cu, 0 };
	char what[600];
	alert_req req;
	int rc;

	snprintf(what, sizeof(what), "POST %s", t->label);
	req = (alert_req){ "POST", t->url,   row->body,
		           what,   row->uid, !strcmp(t->cfg->kind, "webhook") };
	rc = alert__request(ctx, curl, t, &req, &resp, tally);
	alert__resp_reset(&resp);
	return rc;
}

/*
 * Who the token posts as: GET {api}/user, once per flush (the targets live
 * that long).  BG_ALERT__OK when answered, even with a refusal: a token
 * that may not read /user (GitHub Actions' GITHUB_TOKEN answers 403) still
 * posts, and alert__ours then decides without a name.  BG_ALERT__RETRY when
 * the forge could not be asked now.
 */
static int alert__forge_self(bg_ctx *ctx, CURL *curl, alert_target *t, alert_tally *tally)
{
	alert_resp resp = { 0, BG_BUF_INIT, -1, NULL, t->cu, 0 };
	const alert_forge *f = t->forge;
	char *api = NULL, what[600];
	json_object *o = NULL, *v;
	bg_buf url = BG_BUF_INIT;
	int rc;

	if (t->self_asked)
		return BG_ALERT__OK;
	if (!(api = alert__redact(t->cu, t->api, 0)) ||
	    bg_buf_printf(&url, "%s/user", t->api) < 0) {
		rc = api ? bg_error_oom(ctx) : BG_ALERT__REFUSED;
		if (!api)
			snprintf(tally->why, sizeof(tally->why), "api_url does not parse");
		goto cleanup;
	}
	snprintf(what, sizeof(what), "GET %s/user", api);
	rc = alert__request(ctx, curl, t, &(alert_req){ "GET", url.ptr, NULL, what, NULL, 0 },
	                    &resp, tally);
	if (rc < 0 || rc == BG_ALERT__RETRY)
		goto cleanup;
	t->self_asked = 1;
	if (rc == BG_ALERT__OK && resp.body.ptr && (o = json_tokener_parse(resp.body.ptr)) &&
	    json_object_is_type(o, json_type_object)) {
		if (json_object_object_get_ex(o, f->author_name, &v) &&
		    json_object_is_type(v, json_type_string) && *json_object_get_string(v) &&
		    !(t->self = strdup(json_object_get_string(v)))) {
			rc = bg_error_oom(ctx);
			goto cleanup;
		}
		if (f->author_id && json_object_object_get_ex(o, f->author_id, &v) &&
		    json_object_is_type(v, json_type_int))
			t->self_id = json_object_get_int64(v);
	}
	if (t->self || t->self_id > 0)
		bg_log(ctx, BG_LOG_DEBUG, "alert %s: the token posts as %s", f->kind,
		       t->self ? t->self : "a user without a name");
	else
		bg_log(ctx, BG_LOG_DEBUG,
		       "alert %s: %s: who the token posts as is not known (%s); %s", f->kind, what,
		       rc == BG_ALERT__OK ? "no name in the answer" : "refused",
		       f->unknown_self ? "comments by the Actions bot are taken as ours"
		                       : "no comment is edited, a new one is made");
	/* The refusal is not the delivery's outcome. */
	tally->why[0] = '\0';
	if (rc != BG_ALERT__OK)
		tally->status = 0;
	rc = BG_ALERT__OK;
cleanup:
	alert__resp_reset(&resp);
	json_object_put(o);
	bg_buf_clear(&url);
	free(api);
	return rc;
}

/* Is c (a comment or note) by the identity the token posts as?  When the
 * forge would not say who that is, the forge's unknown_self is (GitHub's
 * GITHUB_TOKEN posts as its Actions bot); else nobody is, and benchguard
 * posts a new comment rather than edit one that may be someone else's. */
static int alert__ours(const alert_target *t, json_object *c)
{
	const alert_forge *f = t->forge;
	json_object *who, *v;
	const char *want = t->self ? t->self : t->self_id > 0 ? NULL : f->unknown_self;

	if (!json_object_object_get_ex(c, f->author, &who) ||
	    !json_object_is_type(who, json_type_object))
		return 0;
	if (t->self_id > 0 && f->author_id)
		return json_object_object_get_ex(who, f->author_id, &v) &&
		       json_object_is_type(v, json_type_int) &&
		       json_object_get_int64(v) == t->self_id;
	/* Logins and usernames are unique whatever their case. */
	return want && json_object_object_get_ex(who, f->author_name, &v) &&
	       json_object_is_type(v, json_type_string) &&
	       !strcasecmp(json_object_get_string(v), want);
}

/*
 * The id of the newest comment in a page (a JSON array) that is ours and
 * starts with the marker; 0: none; -1: not a JSON array.  Anyone can write
 * the marker (or quote it in a reply), and editing their comment would be
 * refused or, worse, would replace what they wrote.  The newest, because
 * an edit refused once leaves a newer comment of ours after it.
 */
static int64_t alert__find_comment(const alert_target *t, const char *page, const char *marker)
{
	json_object *a = json_tokener_parse(page);
	size_t i, n, len = strlen(marker);
	int64_t id = 0;

	if (!a || !json_object_is_type(a, json_type_array)) {
		json_object_put(a);
		return -1;
	}
	n = json_object_array_length(a);
	for (i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(a, i), *b, *v;
		const char *body;
		if (!c || !json_object_is_type(c, json_type_object) ||
		    !json_object_object_get_ex(c, "body", &b) ||
		    !json_object_is_type(b, json_type_string) ||
		    !json_object_object_get_ex(c, "id", &v) || json_object_get_int64(v) <= 0)
			continue;
		body = json_object_get_string(b);
		if (!strncmp(body, marker, len) && strchr("\r\n", body[len]) && alert__ours(t, c))
			id = json_object_get_int64(v);
	}
	json_object_put(a);
	return id;
}

/* The marker is the first line of the comment as queued. */
static char *alert__body_marker(const char *body)
{
	json_object *o = json_tokener_parse(body), *b;
	char *marker = NULL;

	if (o && json_object_object_get_ex(o, "body", &b) &&
	    json_object_is_type(b, json_type_string)) {
		const char *s = json_object_get_string(b);
		marker = strndup(s, strcspn(s, "\n"));
	}
	json_object_put(o);
	return marker;
}

/* A forge's comment: the thread's comments are read for ours, with the
 * marker, then the one found is edited, or one is created when the alert is
 * to be sent. */
static int alert__forge_comment(bg_ctx *ctx, CURL *curl, alert_target *t, const bg_outbox_row *row,
                                alert_tally *tally)
{
	alert_resp resp = { 0, BG_BUF_INIT, -1, NULL, t->cu, 0 };
	char *marker = NULL, *url = NULL, *next = NULL, *shown = NULL;
	char *api = alert__redact(t->cu, t->api, 0);
	char what[600];
	int64_t id = 0, found;
	alert_req req;
	int rc = BG_ALERT__REFUSED, page, size, listed = 0;

	/* The database is not trusted: its number goes into the token's URL. */
	if (!api || !row->pr || !bg_config__valid_pr(row->pr) ||
	    !(marker = alert__body_marker(row->body))) {
		snprintf(tally->why, sizeof(tally->why), "%s",
		         !api ? "api_url does not parse" : "a malformed outbox entry");
		goto cleanup;
	}
	if (!(url = alert__forge_url(t, t->api, row->pr, 0, t->forge->list_query)) ||
	    !(shown = alert__forge_url(t, api, row->pr, 0, NULL))) {
		rc = bg_error_oom(ctx);
		goto cleanup;
	}
	if ((rc = alert__forge_self(ctx, curl, t, tally)) != BG_ALERT__OK)
		goto cleanup;
	/*
	 * Find the comment: every page, following Link: rel="next".  A page
	 * longer than benchguard reads of an answer (a busy pull request's
	 * 100 long comments) cannot be parsed: the same comments are asked for
	 * again in pages a tenth as long, down to one a page; one comment that
	 * long is a definite failure, not retried on every flush.
	 */
	for (page = 1, size = ALERT_PAGE_SIZE; listed < ALERT_FORGE_COMMENTS; page++) {
		snprintf(what, sizeof(what), "GET %s (page %d)", shown, page);
		req = (alert_req){ "GET", next ? next : url, NULL, what, NULL, 0 };
		if ((rc = alert__request(ctx, curl, t, &req, &resp, tally)) != BG_ALERT__OK)
			goto cleanup;
		if (resp.cut) {
			char *smaller = NULL;
			if (size > 1 && alert__page_url(req.url, size / 10, &smaller) < 0) {
				rc = bg_error_oom(ctx);
				goto cleanup;
			}
			if (!smaller) {
				snprintf(tally->why, sizeof(tally->why),
				         "%s: the answer is longer than the %d MiB benchguard "
				         "reads, at %d comment%s a page",
				         what, ALERT_BODY_LIMIT >> 20, size, size == 1 ? "" : "s");
				rc = BG_ALERT__REFUSED;
				goto cleanup;
			}
			bg_log(ctx, BG_LOG_DEBUG,
			       "alert %s: %s: longer than %d MiB; asking for %d comment%s a page",
			       t->forge->kind, what, ALERT_BODY_LIMIT >> 20, size / 10,
			       size / 10 == 1 ? "" : "s");
			free(next);
			next = smaller;
			size /= 10;
			continue;
		}
		listed += size;
		found = alert__find_comment(t, resp.body.ptr ? resp.body.ptr : "", marker);
		if (found < 0) {
			snprintf(tally->why, sizeof(tally->why),
			         "%s: the answer is not a JSON array", what);
			rc = BG_ALERT__RETRY;
			goto cleanup;
		}
		if (found)
			id = found;
		free(next);
		next = resp.link ? bg_alert__next_link(resp.link, t->api) : NULL;
		if (!next)
			break;
	}
	free(url);
	free(shown);
	url = shown = NULL;
	if (id <= 0 && strcmp(row->mode, "send")) {
		bg_log(ctx, BG_LOG_DEBUG,
		       "alert %s: no comment on %s%s%s to update, and nothing to report",
		       t->forge->kind, t->repo, t->forge->sep, row->pr);
		rc = BG_ALERT__OK;
		goto cleanup;
	}
	if (!(url = alert__forge_url(t, t->api, row->pr, id > 0 ? id : 0, NULL)) ||
	    !(shown = alert__forge_url(t, api, row->pr, id > 0 ? id : 0, NULL))) {
		rc = bg_error_oom(ctx);
		goto cleanup;
	}
	snprintf(what, sizeof(what), "%s %s", id > 0 ? t->forge->update : "POST", shown);
	req = (alert_req){ id > 0 ? t->forge->update : "POST", url, row->body, what, NULL, 0 };
	rc = alert__request(ctx, curl, t, &req, &resp, tally);
	if (id > 0 && rc == BG_ALERT__REFUSED &&
	    (tally->status == 403 || tally->status == 404 || tally->status == 410)) {
		/* Ours, but locked to us, or deleted since the listing: a new
		 * comment keeps the pull request from showing a stale verdict,
		 * whatever the mode (the next flush finds and edits that one). */
		bg_log(ctx, BG_LOG_DEBUG,
		       "alert %s: %s: the edit was refused (HTTP %d); posting a new comment "
		       "instead",
		       t->forge->kind, what, tally->status);
		tally->why[0] = '\0';
		free(url);
		free(shown);
		url = shown = NULL;
		if (!(url = alert__forge_url(t, t->api, row->pr, 0, NULL)) ||
		    !(shown = alert__forge_url(t, api, row->pr, 0, NULL))) {
			rc = bg_error_oom(ctx);
			goto cleanup;
		}
		snprintf(what, sizeof(what), "POST %s", shown);
		req = (alert_req){ "POST", url, row->body, what, NULL, 0 };
		rc = alert__request(ctx, curl, t, &req, &resp, tally);
	}
cleanup:
	alert__resp_reset(&resp);
	free(marker);
	free(url);
	free(shown);
	free(next);
	free(api);
	return rc;
}

static int alert__deliver(bg_ctx *ctx, CURL *curl, alert_target *t, const bg_outbox_row *row,
                          alert_tally *tally)
{
	return t->forge ? alert__forge_comment(ctx, curl, t, row, tally)
	                : alert__post(ctx, curl, t, row, tally);
}

/* ----------------------------------------------------------------- bodies */

static int alert__wanted(unsigned on, const bg_check_result *res)
{
	return (on & BG_ALERT_ON_ALWAYS) ||
	       ((on & BG_ALERT_ON_REGRESSION) && res->count[BG_VERDICT_REGRESSION]) ||
	       ((on & BG_ALERT_ON_IMPROVEMENT) && res->count[BG_VERDICT_IMPROVEMENT]);
}

static char *alert__json_text(json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	return s ? strdup(s) : NULL;
}

/* The check JSON, plus what a receiver needs to route and verify it. */
static int alert__webhook_body(bg_ctx *ctx, const bg_alert_event *ev, const char *uid, int64_t now,
                               char **out)
{
	const bg_check_result *res = ev->result;
	json_object *top = json_tokener_parse(ev->check_json), *links;

	*out = NULL;
	if (!top || !json_object_is_type(top, json_type_object)) {
		json_object_put(top);
		return bg_error_set(ctx, BG_EINPUT, "the alert's check JSON does not parse");
	}
	links = json_object_new_object();
	if (ev->commit_url)
		json_object_object_add(links, "commit", json_object_new_string(ev->commit_url));
	if (ev->run_url)
		json_object_object_add(links, "run", json_object_new_string(ev->run_url));
	json_object_object_add(top, "project",
	                       json_object_new_string(ev->project ? ev->project : "default"));
	json_object_object_add(
	        top, "event",
	        json_object_new_string(res->count[BG_VERDICT_REGRESSION]    ? "regression"
	                               : res->count[BG_VERDICT_IMPROVEMENT] ? "improvement"
	                                                                    : "none"));
	if (ev->subject)
		json_object_object_add(top, "subject", json_object_new_string(ev->subject));
	json_object_object_add(top, "links", links);
	json_object_object_add(top, "alert_id", json_object_new_string(uid));
	json_object_object_add(top, "created_at", json_object_new_int64(now));
	if (ev->sample)
		json_object_object_add(top, "sample", json_object_new_boolean(1));
	*out = alert__json_text(top);
	json_object_put(top);
	return *out ? 0 : bg_error_oom(ctx);
}

static int alert__slack_body(bg_ctx *ctx, const bg_alert_event *ev, char **out)
{
	char *text = bg_alert__slack_text(ev);
	json_object *o;

	*out = NULL;
	if (!text)
		return bg_error_oom(ctx);
	o = json_object_new_object();
	json_object_object_add(o, "text", json_object_new_string(text));
	*out = alert__json_text(o);
	json_object_put(o);
	free(text);
	return *out ? 0 : bg_error_oom(ctx);
}

/* The Markdown table cut at a row, when the comment would be longer than
 * the forge takes: regressions come first, and are what is kept. */
#define ALERT_CUT_NOTE                                                                             \
	"\n_The table is cut short: the whole verdict is longer than a comment may be. "           \
	"`benchguard check` prints it all._\n"

char *bg_alert__forge_text(const char *kind, const bg_alert_event *ev)
{
	const alert_forge *f = alert__forge(kind);
	const char *md = ev->markdown ? ev->markdown : "";
	char *marker = bg_alert__marker(ev->project);
	bg_buf b = BG_BUF_INIT, tail = BG_BUF_INIT;
	size_t keep = strlen(md);
	int err = 0;

	if (!f || !marker)
		goto nomem;
	err |= bg_buf_printf(&b, "%s\n%s", marker,
	                     ev->sample ? "_A sample from `benchguard alert test`._\n\n" : "");
	err |= bg_buf_puts(&tail, "\n<sub>benchguard");
	if (ev->run_url)
		err |= bg_buf_printf(&tail, " \xC2\xB7 [CI run](%s)", ev->run_url);
	err |= bg_buf_printf(&tail, " \xC2\xB7 updated for commit `%.12s`</sub>\n",
	                     ev->result->sha);
	if (err)
		goto nomem;
	if (b.len + keep + tail.len > f->max_body) {
		size_t used = b.len + tail.len + strlen(ALERT_CUT_NOTE);
		size_t room = used < f->max_body ? f->max_body - used : 0;

		/* Whole lines only: a row cut in two would break the table. */
		for (keep = room < keep ? room : keep; keep && md[keep - 1] != '\n'; keep--)
			;
	}
	err |= bg_buf_put(&b, md, keep);
	if (keep < strlen(md))
		err |= bg_buf_puts(&b, ALERT_CUT_NOTE);
	err |= bg_buf_put(&b, tail.ptr, tail.len);
	if (err)
		goto nomem;
	free(marker);
	bg_buf_clear(&tail);
	return bg_buf_detach(&b);
nomem:
	free(marker);
	bg_buf_clear(&b);
	bg_buf_clear(&tail);
	return NULL;
}

static int alert__forge_body(bg_ctx *ctx, const char *kind, const bg_alert_event *ev, char **out)
{
	char *text = bg_alert__forge_text(kind, ev);
	json_object *o;

	*out = NULL;
	if (!text)
		return bg_error_oom(ctx);
	o = json_object_new_object();
	json_object_object_add(o, "body", json_object_new_string(text));
	free(text);
	*out = alert__json_text(o);
	json_object_put(o);
	return *out ? 0 : bg_error_oom(ctx);
}

static int alert__body(bg_ctx *ctx, const alert_target *t, const bg_alert_event *ev,
                       const char *uid, int64_t now, char **out)
{
	if (t->forge)
		return alert__forge_body(ctx, t->forge->kind, ev, out);
	if (!strcmp(t->cfg->kind, "slack"))
		return alert__slack_body(ctx, ev, out);
	return alert__webhook_body(ctx, ev, uid, now, out);
}

/* ------------------------------------------------------------- public API */

/* One handle for a flush or a test, so connections are reused between tries. */
static int alert__easy_start(bg_ctx *ctx, const alert_curl *cu, CURL **curl)
{
	if (!(*curl = cu->curl_easy_init()))
		return bg_error_set(ctx, BG_ERROR, "cannot start libcurl");
	return 0;
}

static void alert__easy_end(const alert_curl *cu, CURL *curl)
{
	if (curl)
		cu->curl_easy_cleanup(curl);
}

static void alert__warn_disabled(bg_ctx *ctx, const bg_config *cfg, const alert_target *t,
                                 const char *what)
{
	bg_log(ctx, BG_LOG_WARN, "%s:%d: %s alert %s: %s", bg_config_path(cfg), t->cfg->line,
	       t->cfg->kind, what, t->why);
}

static void alert__targets_free(alert_target *t, size_t n)
{
	size_t i;

	for (i = 0; t && i < n; i++)
		alert__target_clear(&t[i]);
	free(t);
}

static int alert__targets(bg_ctx *ctx, const alert_curl *cu, const bg_config *cfg,
                          alert_target **out, size_t *n)
{
	size_t i, count = bg_config_alert_count(cfg);
	alert_target *t;
	int err;

	*out = NULL;
	*n = 0;
	if (!count)
		return 0;
	if (!(t = calloc(count, sizeof(*t))))
		return bg_error_oom(ctx);
	for (i = 0; i < count; i++) {
		if ((err = alert__target_init(ctx, cu, bg_config_alert(cfg, i),
		                              bg_config_project(cfg), &t[i])) < 0) {
			alert__targets_free(t, count);
			return err;
		}
	}
	*out = t;
	*n = count;
	return 0;
}

int bg_alert_queue(bg_ctx *ctx, bg_store *store, const bg_config *cfg, const bg_alert_event *ev,
                   bg_alert_stats *stats)
{
	alert_target *targets = NULL;
	alert_curl cu = { .dl = NULL };
	size_t n = 0, i;
	int err;

	BG_NEED(ctx, store);
	BG_NEED(ctx, cfg);

	if (!ev || !ev->result || !ev->check_json)
		return bg_error_set(ctx, BG_EINPUT, "an alert needs a check result");
	if (!bg_config_alert_count(cfg))
		return 0;
	/* The targets' URLs are read (labels, secrets) with libcurl's parser. */
	if ((err = alert__curl_start(ctx, &cu)) < 0 ||
	    (err = alert__targets(ctx, &cu, cfg, &targets, &n)) < 0)
		goto cleanup;
	for (i = 0; i < n && err == 0; i++) {
		alert_target *t = &targets[i];
		int want = ev->sample || alert__wanted(t->cfg->on, ev->result);
		bg_outbox_row row;
		int64_t id, now = (int64_t)time(NULL);
		char *body = NULL;

		/* A forge's comment that exists is kept current whatever "on" says. */
		if (!want && (!t->forge || !t->enabled || !t->pr))
			continue;
		if (!t->enabled || (t->forge && !t->pr)) {
			if (t->enabled && t->pr_why[0])
				snprintf(t->why, sizeof(t->why), "%s", t->pr_why);
			else if (t->enabled)
				snprintf(t->why, sizeof(t->why),
				         "no %s number (%s is not set or not a number)",
				         t->forge->thread_name, t->cfg->pr);
			if (want)
				alert__warn_disabled(ctx, cfg, t, "not sent");
			stats->disabled++;
			continue;
		}
		memset(&row, 0, sizeof(row));
		if (bg_random_hex(row.uid) < 0) {
			err = bg_error_set(ctx, BG_ERROR, "no random bytes for an alert id");
			break;
		}
		if ((err = alert__body(ctx, t, ev, row.uid, now, &body)) < 0)
			break;
		row.kind = (char *)t->cfg->kind;
		row.target = t->key;
		row.label = t->label;
		row.pr = t->forge ? t->pr : NULL;
		row.mode = (char *)(want ? "send" : "update");
		row.body = body;
		row.run_id = ev->result->run_id;
		row.created_at = now;
		err = bg_store_outbox_add(ctx, store, &row, &id);
		free(body);
		if (err == 0)
			stats->queued++;
	}
cleanup:
	alert__targets_free(targets, n);
	alert__curl_end(&cu);
	return err;
}

static void alert__report(bg_alert_report_cb cb, void *data, const bg_outbox_row *row,
                          const char *label, const char *outcome, const alert_tally *tally)
{
	bg_alert_report r;

	if (!cb)
		return;
	memset(&r, 0, sizeof(r));
	r.kind = row ? row->kind : "";
	r.target = label;
	r.outcome = outcome;
	r.attempts = tally ? tally->attempts : 0;
	r.status = tally ? tally->status : 0;
	r.why = tally && tally->why[0] && strcmp(outcome, "delivered") ? tally->why : NULL;
	r.id = row ? row->id : 0;
	cb(&r, data);
}

/* A pending comment that a newer one for the same pull request replaces:
 * the same target and the same marker.  Another project's comment on that
 * pull request (its own marker; a target is its strings, not its project)
 * is a comment of its own, never a replacement. */
static int alert__superseded(const bg_outbox_row *rows, size_t n, size_t i)
{
	char *mine, *theirs;
	int found = 0;
	size_t j;

	if (!alert__forge(rows[i].kind) || !rows[i].pr ||
	    !(mine = alert__body_marker(rows[i].body)))
		return 0;
	for (j = i + 1; j < n && !found; j++) {
		if (strcmp(rows[j].target, rows[i].target) || !rows[j].pr ||
		    strcmp(rows[j].pr, rows[i].pr))
			continue;
		theirs = alert__body_marker(rows[j].body);
		found = theirs && !strcmp(theirs, mine);
		free(theirs);
	}
	free(mine);
	return found;
}

/*
 * Claims an entry for delivery.  One another benchguard holds (a parallel
 * CI job sending it now, or one that died sending it) is waited for, within
 * this target's budget, until it is settled there (*until 0) or the claim
 * runs out (then it is claimed here: *claimed 1).  Still held when the
 * budget ends (or on Ctrl-C): *until says when the claim runs out.
 */
static int alert__take(bg_ctx *ctx, bg_store *store, alert_target *t, const bg_outbox_row *row,
                       int *claimed, int64_t *until)
{
	int err;

	*until = 0;
	for (;;) {
		/* Held until well past this target's budget: a crashed process's
		 * claim runs out, a live one's never does while it sends. */
		if ((err = bg_store_outbox_claim(
		             ctx, store, row->id,
		             (int64_t)time(NULL) + (int64_t)t->cfg->timeout + 60, claimed)) < 0 ||
		    *claimed)
			return err;
		if ((err = bg_store_outbox_held(ctx, store, row->id, until)) < 0 || *until == 0)
			return err;
		if (*until > (int64_t)time(NULL) &&
		    (bg_now() + 0.2 > t->deadline - ALERT_MARGIN || alert__sleep(ctx, 0.2) < 0))
			return 0;
	}
}

/* Delivers one claimed entry and records what became of it. */
static int alert__flush_one(bg_ctx *ctx, bg_store *store, CURL *curl, alert_target *t,
                            const bg_outbox_row *row, bg_alert_report_cb cb, void *data,
                            bg_alert_stats *stats)
{
	static const char *const states[] = { "delivered", "pending", "failed" };
	alert_tally tally;
	char *why;
	int rc, err;

	memset(&tally, 0, sizeof(tally));
	rc = alert__deliver(ctx, curl, t, row, &tally);
	if (rc < 0) {
		/* Out of memory: leave it pending for the next try. */
		bg_store_outbox_settle(ctx, store, row->id, "pending", tally.attempts, tally.status,
		                       "out of memory");
		return rc;
	}
	why = tally.why[0] && rc != BG_ALERT__OK ? alert__scrub(t, tally.why) : NULL;
	err = bg_store_outbox_settle(ctx, store, row->id, states[rc], tally.attempts, tally.status,
	                             why);
	if (why) {
		snprintf(tally.why, sizeof(tally.why), "%s", why);
		free(why);
	}
	if (err < 0)
		return err;
	if (rc == BG_ALERT__OK)
		stats->delivered++;
	else if (rc == BG_ALERT__RETRY)
		stats->pending++;
	else
		stats->failed++;
	/* The URL as it is now (a rotated ${VAR}); a comment's own pull request. */
	alert__report(cb, data, row, t->forge ? row->label : t->label, states[rc], &tally);
	return 0;
}

int bg_alert_flush(bg_ctx *ctx, bg_store *store, const bg_config *cfg, bg_alert_report_cb cb,
                   void *data, bg_alert_stats *stats)
{
	alert_target *targets = NULL;
	bg_outbox_row *rows = NULL;
	size_t nt = 0, nrows = 0, i, k;
	alert_curl cu = { .dl = NULL };
	CURL *curl = NULL;
	char ours[ALERT_TAG_SIZE];
	int err;

	BG_NEED(ctx, store);
	BG_NEED(ctx, cfg);

	if (alert__project_tag(bg_config_project(cfg), ours) < 0)
		return bg_error_set(ctx, BG_ERROR, "cannot hash the project's name");
	if ((err = bg_store_outbox_prune(ctx, store, (int64_t)time(NULL) - ALERT_KEEP_SECONDS)) <
	            0 ||
	    (err = bg_store_outbox_list(ctx, store, "pending", &rows, &nrows)) < 0)
		return err;
	if (!nrows)
		goto cleanup;
	if ((err = alert__curl_start(ctx, &cu)) < 0 ||
	    (err = alert__targets(ctx, &cu, cfg, &targets, &nt)) < 0 ||
	    (err = alert__easy_start(ctx, &cu, &curl)) < 0)
		goto cleanup;
	for (i = 0; i < nrows && err == 0; i++) {
		const bg_outbox_row *row = &rows[i];
		alert_target *t = NULL;
		alert_tally tally;
		int64_t until = 0;
		int claimed;

		memset(&tally, 0, sizeof(tally));
		/* An entry of an older benchguard names its target without the
		 * project: any project's target of those strings may send it. */
		for (k = 0; k < nt && !t; k++)
			if (!strcmp(targets[k].key, row->target) ||
			    (!strchr(row->target, '@') && !strcmp(targets[k].legacy, row->target)))
				t = &targets[k];
		/* Another project's, in a database they share: its own ci sends it. */
		if (!t && strchr(row->target, '@') && strcmp(strchr(row->target, '@'), ours))
			continue;
		if (!t || !t->enabled) {
			if (!t)
				snprintf(tally.why, sizeof(tally.why),
				         "its target is no longer configured; `benchguard alert "
				         "drop "
				         "%lld` gives it up",
				         (long long)row->id);
			else
				snprintf(tally.why, sizeof(tally.why), "%s", t->why);
			stats->pending++;
			alert__report(cb, data, row, row->label, "pending", &tally);
			continue;
		}
		if (!(t->deadline > 0))
			t->deadline = bg_now() + t->cfg->timeout;
		if ((err = alert__take(ctx, store, t, row, &claimed, &until)) < 0)
			break;
		if (!claimed) {
			/* Settled by the other benchguard: nothing to say.  Still
			 * pending after this target's budget: not delivered yet, and
			 * said so. */
			if (until > 0) {
				char when[32];
				time_t tu = (time_t)until;
				struct tm tm;

				strftime(when, sizeof(when), "%H:%M:%S UTC", gmtime_r(&tu, &tm));
				snprintf(
				        tally.why, sizeof(tally.why),
				        "another benchguard is sending it (or died sending it); it "
				        "may be sent again from %s",
				        when);
				stats->pending++;
				alert__report(cb, data, row, t->forge ? row->label : t->label,
				              "pending", &tally);
			}
			continue;
		}
		if (alert__superseded(rows, nrows, i)) {
			err = bg_store_outbox_settle(ctx, store, row->id, "superseded", 0, 0,
			                             "a newer comment replaced it");
			alert__report(cb, data, row, row->label, "superseded", NULL);
			continue;
		}
		err = alert__flush_one(ctx, store, curl, t, row, cb, data, stats);
	}
cleanup:
	alert__easy_end(&cu, curl);
	alert__targets_free(targets, nt);
	alert__curl_end(&cu);
	bg_outbox_rows_free(rows, nrows);
	return err;
}

int bg_alert_drop(bg_ctx *ctx, bg_store *store, int64_t id, bg_alert_report_cb cb, void *data)
{
	bg_outbox_row *rows = NULL;
	size_t n = 0, i;
	int64_t until;
	int err, claimed = 0;

	BG_NEED(ctx, store);
	if ((err = bg_store_outbox_list(ctx, store, "pending", &rows, &n)) < 0)
		return err;
	for (i = 0; i < n && rows[i].id != id; i++)
		;
	if (i == n) {
		err = bg_error_set(ctx, BG_EINPUT, "no alert #%lld is pending in the outbox",
		                   (long long)id);
		goto cleanup;
	}
	/* Claimed first, as a flush claims it: one sending it now keeps it. */
	if ((err = bg_store_outbox_claim(ctx, store, id, (int64_t)time(NULL) + 60, &claimed)) < 0)
		goto cleanup;
	if (!claimed) {
		if ((err = bg_store_outbox_held(ctx, store, id, &until)) < 0)
			goto cleanup;
		err = until > 0 ? bg_error_set(ctx, BG_EINPUT,
		                               "alert #%lld is being sent by another benchguard",
		                               (long long)id)
		                : bg_error_set(ctx, BG_EINPUT,
		                               "no alert #%lld is pending in the outbox",
		                               (long long)id);
		goto cleanup;
	}
	if ((err = bg_store_outbox_settle(ctx, store, id, "failed", 0, rows[i].last_status,
	                                  "dropped by hand (benchguard alert drop)")) < 0)
		goto cleanup;
	alert__report(cb, data, &rows[i], rows[i].label, "dropped", NULL);
cleanup:
	bg_outbox_rows_free(rows, n);
	return err;
}

int bg_alert_test(bg_ctx *ctx, const bg_config *cfg, const bg_alert_event *ev,
                  bg_alert_report_cb cb, void *data, bg_alert_stats *stats)
{
	alert_target *targets = NULL;
	alert_curl cu = { .dl = NULL };
	size_t n = 0, i;
	CURL *curl = NULL;
	int err;

	BG_NEED(ctx, cfg);

	if (!ev || !ev->result || !ev->check_json)
		return bg_error_set(ctx, BG_EINPUT, "an alert needs a check result");
	if ((err = alert__curl_start(ctx, &cu)) < 0 ||
	    (err = alert__targets(ctx, &cu, cfg, &targets, &n)) < 0 ||
	    (err = alert__easy_start(ctx, &cu, &curl)) < 0)
		goto cleanup;
	for (i = 0; i < n && err == 0; i++) {
		alert_target *t = &targets[i];
		alert_resp resp = { 0, BG_BUF_INIT, -1, NULL, t->cu, 0 };
		alert_tally tally;
		bg_outbox_row row;
		char what[600], *url = NULL, *api = NULL, *why;
		const char *outcome;
		int rc;

		memset(&tally, 0, sizeof(tally));
		memset(&row, 0, sizeof(row));
		row.kind = (char *)t->cfg->kind;
		row.pr = t->pr;
		if (!t->enabled || t->pr_why[0]) {
			/* A number that is set but wrong: no use reading the repo. */
			snprintf(tally.why, sizeof(tally.why), "%s",
			         t->enabled ? t->pr_why : t->why);
			stats->disabled++;
			alert__report(cb, data, &row, t->label, "disabled", &tally);
			continue;
		}
		t->deadline = bg_now() + t->cfg->timeout;
		if (t->forge) {
			char *shown = NULL;
			/* Reading is the test: a sample comment would replace the verdict. */
			api = alert__redact(t->cu, t->api, 0);
			url = api ? alert__forge_url(t, t->api, t->pr, 0,
			                             t->pr ? "?per_page=1" : NULL)
			          : NULL;
			shown = url ? alert__forge_url(t, api, t->pr, 0, NULL) : NULL;
			if (!shown) {
				free(api);
				free(url);
				err = bg_error_oom(ctx);
				break;
			}
			snprintf(what, sizeof(what), "GET %s", shown);
			rc = alert__request(ctx, curl, t,
			                    &(alert_req){ "GET", url, NULL, what, NULL, 0 }, &resp,
			                    &tally);
			alert__resp_reset(&resp);
			free(shown);
			free(api);
			free(url);
		} else {
			int64_t now = (int64_t)time(NULL);
			if (bg_random_hex(row.uid) < 0) {
				err = bg_error_set(ctx, BG_ERROR,
				                   "no random bytes for an alert id");
				break;
			}
			if ((err = alert__body(ctx, t, ev, row.uid, now, &row.body)) < 0)
				break;
			rc = alert__post(ctx, curl, t, &row, &tally);
			free(row.body);
		}
		if (rc < 0) {
			err = rc;
			break;
		}
		outcome = rc == BG_ALERT__OK ? "delivered" : "failed";
		if (rc == BG_ALERT__OK)
			stats->delivered++;
		else
			stats->failed++;
		if ((why = alert__scrub(t, tally.why)) != NULL) {
			snprintf(tally.why, sizeof(tally.why), "%s", why);
			free(why);
		}
		alert__report(cb, data, &row, t->label, outcome, &tally);
	}
cleanup:
	alert__easy_end(&cu, curl);
	alert__targets_free(targets, n);
	alert__curl_end(&cu);
	return err;
}
