# t_ci_templates.sh -- the CI templates under ci/ (the YAML ones and the
# Jenkinsfile) say what benchguard does:
#   - each file is YAML (where python3 has its yaml module);
#   - every option a template gives a benchguard command (in its steps or
#     its comments) is one that command accepts, so a renamed option cannot
#     leave a template behind;
#   - no template writes a password into a database URI or key=value
#     string: passwords come from PGPASSWORD, ~/.pgpass or a ${VAR};
#   - the PostgreSQL templates never save the database in a CI cache (a
#     cache is last-writer-wins and loses runs; restoring an old one once,
#     to copy it into the server, is fine) and name the runner class with
#     --machine in every `benchguard ci`;
#   - the GitLab templates and the Jenkinsfile publish the JUnit report
#     that `benchguard ci --junit FILE` writes, also when the job fails;
#   - the SQLite templates keep the database in the CI cache also when the
#     job fails (a regression exits 1: its runs and verdict are the next
#     job's baseline), and every cache of it holds results.db-wal beside
#     results.db (a killed run leaves committed data there), with the same
#     paths wherever GitHub restores it (its cache is keyed by the paths);
#     only jobs of the default branch save it (a pull request's own cache,
#     restored first, lacks main's newer runs), and GitLab's caches of it
#     are shared by protected and other branches (unprotect: true).
. "$(dirname "$0")/lib.sh"

CI_DIR="${BG_ROOT:?}/ci"
cd "$T" || exit 1
export BENCHGUARD_DB="$T/t.db" # nothing may touch a real database

shopt -s nullglob
files=("$CI_DIR"/*.yml)
check "ci/ has its templates" test "${#files[@]}" -ge 6
jenkins="$CI_DIR/Jenkinsfile"
check "ci/Jenkinsfile exists" test -s "$jenkins"
for f in "$CI_DIR"/github-actions-postgres.yml "$CI_DIR"/gitlab-ci-postgres.yml; do
	check "$(basename "$f") exists" test -s "$f"
done

yaml_ok() { # FILE: parses, or the parser's last words as TAP comments
	python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' "$1" 2>"$T/yaml.err" ||
		{ tail -n 3 "$T/yaml.err" | sed 's/^/# /'; return 1; }
}
if python3 -c 'import yaml' 2>/dev/null; then
	for f in "${files[@]}"; do
		check "$(basename "$f") is YAML" yaml_ok "$f"
	done
else
	skip "ci/*.yml are YAML" "python3 has no yaml module"
fi

# The commands benchguard has, from its own help.
"$BG" help >"$T/help" 2>&1
cmds=$(awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on && NF { print $1 }' "$T/help")
check "benchguard help lists the commands" test "$(echo "$cmds" | wc -w)" -ge 10

# Every "benchguard CMD ... --opt" in the templates, one "CMD --opt" a line:
# the words after CMD up to the end of the command (;, &&, ||, |, a backtick,
# a closing quote or the line's end).
python3 - "${files[@]}" "$jenkins" >"$T/uses" <<'P'
import re, sys
for path in sys.argv[1:]:
    for line in open(path):
        for m in re.finditer(r"\bbenchguard((?:\s+--?[a-z][a-z-]*(?:[= ]\S+)?)*)\s+([a-z]+)\b([^;|&`'\"\n]*)", line):
            for opt in re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*)", m.group(3)):
                print(m.group(2), opt)
P
check "the templates give benchguard options" test -s "$T/uses"
check "... among them ci --machine" grep -qx -- 'ci --machine' "$T/uses"
check "... and ci --junit" grep -qx -- 'ci --junit' "$T/uses"
bad=
while read -r c o; do
	echo "$cmds" | grep -qx -- "$c" || continue # a word after "benchguard" that is no command
	"$BG" "$c" "$o=x" --help >"$T/acc.out" 2>"$T/acc.err" </dev/null
	grep -q "unknown option\|unrecognized option" "$T/acc.err" && bad="$bad $c:$o"
done < <(sort -u "$T/uses")
check "every option the templates give is accepted${bad:+ (not:$bad)}" test -z "$bad"

# No password in a URI (user:password@) or a key=value string (password=).
leaks=$(grep -nE 'postgres(ql)?://[^/@[:space:]]*:[^/@[:space:]]*@|(^|[[:space:]"'\''])password=' "${files[@]}")
check "no template writes a password into a database string${leaks:+ ($leaks)}" test -z "$leaks"

gh="$CI_DIR/github-actions-postgres.yml" gl="$CI_DIR/gitlab-ci-postgres.yml"
code() { grep -vE '^[[:space:]]*#' "$1"; } # the lines that are not comments
check "github-actions-postgres.yml saves no actions/cache (restore only)" \
	bash -c "! grep -E 'uses:[[:space:]]*actions/cache(/save)?@' <(grep -vE '^[[:space:]]*#' '$gh')"
check "github-actions-postgres.yml takes the password from a secret into PGPASSWORD" \
	grep -qE 'PGPASSWORD:[[:space:]]*\$\{\{[[:space:]]*secrets\.' "$gh"
check "github-actions-postgres.yml has a postgres service container" grep -qE '^[[:space:]]+services:' "$gh"
ncache=$(code "$gl" | grep -cE '^[[:space:]]+cache:')
npull=$(code "$gl" | grep -cE '^[[:space:]]+policy:[[:space:]]*pull([[:space:]]|$)')
check "gitlab-ci-postgres.yml: every cache: only pulls ($ncache cache:, $npull pull)" test "$ncache" -eq "$npull"
check "gitlab-ci-postgres.yml has the postgres service and points BENCHGUARD_DB at it" \
	bash -c "grep -qE '^[[:space:]]+- postgres:[0-9]+' '$gl' && grep -qE 'BENCHGUARD_DB:[[:space:]]*\"?postgresql://[^@]*@postgres/' '$gl'"
for f in "$gh" "$gl"; do
	n=$(code "$f" | grep -cE '\bbenchguard ci\b')
	m=$(code "$f" | grep -E '\bbenchguard ci\b' | grep -c -- '--machine')
	check "$(basename "$f"): every benchguard ci names the machine ($m of $n)" \
		test "$n" -ge 1 -a "$n" -eq "$m"
	check "$(basename "$f"): copies a cached SQLite file with db copy" \
		grep -qE 'benchguard db copy \.benchguard/results\.db "\$BENCHGUARD_DB"' "$f"
done

# The JUnit report: every GitLab job that runs `benchguard ci --junit FILE`
# (its own keys or those it extends) publishes FILE as artifacts:reports:junit,
# when: always (a regression fails the job, and then it is wanted most).
if python3 -c 'import yaml' 2>/dev/null; then
	for f in "$CI_DIR"/gitlab-ci.yml "$gl"; do
		check "$(basename "$f"): each ci --junit FILE is published as reports:junit, when: always" \
			python3 - "$f" <<'P'
import re, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
def merged(name, seen=()):
    job = doc[name]
    out = {}
    bases = job.get("extends", [])
    for b in [bases] if isinstance(bases, str) else bases:
        assert b not in seen, b
        out.update(merged(b, seen + (b,)))
    out.update(job)
    return out
n = 0
for name, job in doc.items():
    if not isinstance(job, dict) or name.startswith("."):
        continue
    job = merged(name)
    script = "\n".join(job.get("script", []))
    if not re.search(r"\bbenchguard ci\b", script):
        continue
    files = set(re.findall(r"\bbenchguard ci\b[^\n]*--junit[= ](\S+)", script))
    assert files, f"{name}: benchguard ci without --junit"
    art = job.get("artifacts") or {}
    assert art.get("when") == "always", f"{name}: artifacts when: {art.get('when')}"
    junit = (art.get("reports") or {}).get("junit")
    junit = {junit} if isinstance(junit, str) else set(junit or [])
    assert files <= junit, f"{name}: writes {files}, publishes {junit}"
    n += 1
assert n, "no job runs benchguard ci"
P
	done
else
	skip "the GitLab templates publish ci's JUnit report" "python3 has no yaml module"
fi
# The SQLite database in the CI cache: saved whatever ci exits with, the
# -wal with it, restored under the same paths it was saved with.
if python3 -c 'import yaml' 2>/dev/null; then
	check "the GitHub templates cache results.db with its -wal, saved also when the job fails" \
		python3 - "$CI_DIR"/github-actions.yml "$CI_DIR"/github-actions-nightly.yml "$gh" <<'P'
import sys, yaml
want = [".benchguard/results.db", ".benchguard/results.db-wal"]
saves = 0
for path in sys.argv[1:]:
    doc = yaml.safe_load(open(path))
    for name, job in doc["jobs"].items():
        for step in job.get("steps", []):
            uses = step.get("uses", "")
            if not uses.startswith("actions/cache"):
                continue
            paths = step["with"]["path"].split()
            assert paths == want, f"{path}: {name}: cache path {paths}, want {want}"
            # actions/cache@ (restore and save) saves only when the job succeeds.
            assert "/" in uses.split("@")[0], f"{path}: {name}: {uses} saves only on success"
            if uses.startswith("actions/cache/save@"):
                assert "always()" in str(step.get("if", "")), f"{path}: {name}: save without if: always()"
                saves += 1
assert saves == 1, f"{saves} saves of the database"
P
	check "the GitLab templates cache results.db with its -wal, saved also when the job fails" \
		python3 - "$CI_DIR"/gitlab-ci.yml "$CI_DIR"/gitlab-ci-nightly.yml "$gl" <<'P'
import sys, yaml
want = [".benchguard/results.db", ".benchguard/results.db-wal"]
n = 0
for path in sys.argv[1:]:
    for name, job in yaml.safe_load(open(path)).items():
        if not isinstance(job, dict) or "cache" not in job:
            continue
        c = job["cache"]
        assert c["paths"] == want, f"{path}: {name}: cache paths {c['paths']}, want {want}"
        if c.get("policy", "pull-push") != "pull":
            assert c.get("when") == "always", f"{path}: {name}: cache saved when: {c.get('when', 'on_success')}"
            n += 1
assert n == 1, f"{n} jobs save the database"
P
	# Only the default branch's jobs save it.  GitHub's restore-keys look in
	# the job's own branch before the default branch: a pull request that
	# saved its database restored it at its next push, without main's runs
	# since, and was judged against main as it was then.  GitLab keeps
	# protected branches' caches apart by default (main's in
	# benchguard-results-protected, every other branch reading
	# -non_protected, never a baseline) unless the cache says unprotect:
	# true, and a branch that saved replaced main's newest database.
	check "the GitHub templates save the database from pushes to the default branch alone" \
		python3 - "$CI_DIR"/github-actions.yml "$CI_DIR"/github-actions-nightly.yml "$gh" <<'P'
import re, sys, yaml
saves = 0
for path in sys.argv[1:]:
    for name, job in yaml.safe_load(open(path))["jobs"].items():
        for step in job.get("steps", []):
            if not step.get("uses", "").startswith("actions/cache/save@"):
                continue
            cond = re.sub(r"\s+", " ", str(step.get("if", "")))
            assert "github.event_name == 'push'" in cond, f"{path}: {name}: saved on {cond!r}"
            assert re.search(r"github\.ref == format\('refs/heads/\{0\}', github\.event\.repository\.default_branch\)", cond), \
                f"{path}: {name}: saved from any branch: {cond!r}"
            assert "||" not in cond, f"{path}: {name}: {cond!r}"
            saves += 1
assert saves == 1, f"{saves} saves"
P
	check "the GitLab templates share the cache across protected branches and save it from the default branch alone" \
		python3 - "$CI_DIR"/gitlab-ci.yml "$CI_DIR"/gitlab-ci-nightly.yml "$gl" <<'P'
import sys, yaml
default = "$CI_COMMIT_BRANCH==$CI_DEFAULT_BRANCH"
saves = 0
for path in sys.argv[1:]:
    for name, job in yaml.safe_load(open(path)).items():
        if not isinstance(job, dict) or "cache" not in job:
            continue
        c = job["cache"]
        assert c.get("unprotect") is True, f"{path}: {name}: cache without unprotect: true"
        policy = c.get("policy", "pull-push")
        if policy == "pull":
            continue
        # A saving cache takes its policy from a variable that the job's
        # rules make pull-push on the default branch and pull elsewhere.
        assert policy.startswith("$"), f"{path}: {name}: policy {policy} on every branch"
        var = policy.lstrip("$").strip("{}")
        rules = job.get("rules") or []
        assert any(r.get("if", "").replace(" ", "") == default for r in rules), \
            f"{path}: {name}: no rule for the default branch"
        for r in rules:
            v = (r.get("variables") or {}).get(var)
            want = "pull-push" if r.get("if", "").replace(" ", "") == default else "pull"
            assert v == want, f"{path}: {name}: {var} {v} under {r}"
        saves += 1
assert saves == 1, f"{saves} saves"
P
else
	skip "the templates cache results.db with its -wal" "python3 has no yaml module"
fi

# Jenkins: ci writes the file the junit step of `post { always { ... } }` reads.
check "Jenkinsfile: benchguard ci --junit FILE, read by the junit step in post always" \
	python3 - "$jenkins" <<'P'
import re, sys
text = open(sys.argv[1]).read()
code = "\n".join(l for l in text.splitlines() if not l.strip().startswith("//"))
files = set(re.findall(r"\bbenchguard ci\b[^'\"\n]*--junit[= ]([^'\"\s]+)", code))
assert files, "no benchguard ci --junit"
post = re.search(r"\bpost\s*\{\s*always\s*\{(.*?)\}", code, re.S)
assert post, "no post { always { ... } }"
read = set(re.findall(r"\bjunit\b[^\n]*?['\"]([^'\"]+\.xml)['\"]", post.group(1)))
assert files <= read, (files, read)
assert re.search(r"^\s*pipeline\s*\{", code, re.M), "not a declarative pipeline"
P

# The runners install what building and running benchguard needs, not the
# test tools (make deps: Chromium, PostgreSQL's server, Go, and linux-perf,
# which Ubuntu's runners do not have under that name).
check "every template installs with make deps-build, none with make deps" bash -c "
	grep -l 'deps-build all' '$CI_DIR'/*.yml '$jenkins' | wc -l | grep -qx \$(ls '$CI_DIR'/*.yml '$jenkins' | xargs grep -l 'make -C' | wc -l) &&
	! grep -nE 'make[^#]* deps( |$)' '$CI_DIR'/*.yml '$jenkins'"
check "... whose packages hold none of the test tools" bash -c "
	out=\$(make -s -n -C '$BG_ROOT' deps-build) && echo \"\$out\" | grep -qw libgit2-dev &&
	! echo \"\$out\" | grep -qwE 'chromium|linux-perf|postgresql|golang-go|hyperfine'"
# A committed baseline of other hardware is refused (exit 2); every template
# goes on to run ci without it.
check "every benchguard baseline import in a template's steps goes on when refused" python3 - "$CI_DIR" "$jenkins" <<'P'
import glob, re, sys
bad = []
for f in glob.glob(sys.argv[1] + "/*.yml") + [sys.argv[2]]:
    lines = open(f).read().splitlines()
    for i, l in enumerate(lines):
        t = l.strip()
        if t.startswith(("#", "//")) or "benchguard baseline import" not in t:
            continue
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if not (t.endswith("||") or "|| " in t.split("benchguard baseline import", 1)[1] or nxt.startswith("||")):
            bad.append(f"{f}:{i + 1}: {t}")
assert not bad, bad
P
# GitLab's script, run as GitLab runs it (each line in a shell that stops at
# a failure), on a fresh cache with a baseline exported on other hardware:
# ci runs and writes its JUnit file.
if python3 -c 'import yaml' 2>/dev/null; then
	new_repo "$T/gl" >/dev/null && cd "$T/gl" || exit 1
	echo '{ "benchmarks": [ { "name": "a", "command": "echo BENCHGUARD m 1 ms", "format": "lines" } ] }' >benchguard.json
	# The project's own baseline, as if exported on other hardware: this
	# machine may be of the kind it was exported on.
	mkdir -p baselines && python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["machine"] = "0000000000000000"
json.dump(d, open(sys.argv[2], "w"))' "$BG_ROOT/baselines/main.json" baselines/main.json
	git add -A && git commit -qm suite
	python3 - "$CI_DIR/gitlab-ci.yml" >"$T/gl.sh" <<'P'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
for job in doc.values():
    if isinstance(job, dict) and "script" in job:
        for line in job["script"]:
            print("(set -e\n%s\n) || exit $?" % line)
        break
P
	mkdir -p "$T/glbin" && ln -sf "$BG" "$T/glbin/benchguard"
	PATH="$T/glbin:$PATH" CI_PIPELINE_ID=7 BENCHGUARD_DB= bash "$T/gl.sh" >"$T/gl.out" 2>&1
	rc=$?
	check "gitlab-ci.yml's script with another machine's baseline: ci runs (exit $rc), its JUnit written" bash -c "
		[ $rc = 0 ] && [ -s benchguard-junit.xml ] && grep -q 'its history starts with this pipeline' '$T/gl.out'"
	cd "$T" || exit 1
else
	skip "gitlab-ci.yml's script with another machine's baseline" "python3 has no yaml module"
fi

finish
