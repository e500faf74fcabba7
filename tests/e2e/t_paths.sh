# t_paths.sh -- the README and docs/ name only files, links and make
# targets that exist, so a reader who follows them never lands on nothing.
#
# What is checked, in README.md, CHANGELOG.md and docs/*.md:
#   - repository paths: a word whose first component is one of the
#     repository's top-level folders (cmd/, lib/, tests/, ci/, examples/,
#     docs/, baselines/, .ci/, ...; `build/` and `.benchguard/` are outputs,
#     not sources), anywhere in the text, prose and code alike, optionally
#     after `./`; it must exist in the working tree (a `*` in it must match
#     at least one file);
#   - links `[text](target)`: the target, relative to the file that links
#     it, exists; `#anchor` (alone or after a .md file) is a heading there,
#     by GitHub's rule for heading ids;
#   - make targets: `make [-opts] [VAR=val] TARGET...` inside code (fenced
#     blocks and `code spans`); every TARGET is a rule of the Makefile.
# Not checked, by rule:
#   - URLs (`scheme://...`) and everything in them; absolute and home paths
#     (/tmp, /usr, $HOME, ~, $PWD/...): a path only counts when no `/`, `$`,
#     `~`, `.` or word character comes right before it;
#   - placeholders: a path followed by `<`, `{`, `$` or `...`, e.g.
#     docs/<name>.md or tests/e2e/t_${x}.sh;
#   - below baselines/: the files `benchguard baseline export` writes in a
#     user's project (baselines/main.json); baselines/ itself is checked;
#   - `make -C DIR` and `make -f FILE`: another project's Makefile (a
#     suite's "build": "make -s -C c").
# The checker is tried first on a made-up tree, so that it cannot pass by
# finding nothing: it must report a missing file, link, anchor and target
# there, and none of the exempt forms above.
. "$(dirname "$0")/lib.sh"

ROOT="${BG_ROOT:?}"

# docpaths ROOT FILE...: one line per thing named that is missing,
# "FILE:LINE: KIND WHAT"; on stdout's last line, "checked N paths, N links,
# N targets".
docpaths() {
	python3 - "$@" <<'PY'
import glob, os, re, sys

root, files = sys.argv[1], sys.argv[2:]
NOT_SOURCE = {"build", ".git", ".benchguard"}
tops = sorted(d for d in os.listdir(root)
              if os.path.isdir(os.path.join(root, d)) and d not in NOT_SOURCE)

def make_targets():
    targets = set()
    try:
        text = open(os.path.join(root, "Makefile"), encoding="utf-8").read()
    except OSError:
        return targets
    for line in text.splitlines():
        if not line or line[0] in "\t#" or "$" in line.split(":")[0]:
            continue
        m = re.match(r"([A-Za-z0-9_.][A-Za-z0-9_. -]*?)\s*::?(?!=)", line)
        if m and "=" not in m.group(1):
            targets.update(w for w in m.group(1).split() if not w.startswith("."))
    return targets

def slug(heading):
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    t = re.sub(r"[^\w\- ]", "", t)
    return t.replace(" ", "-")

def split(text):
    """(line number, text, in a fenced block) for every line."""
    out, fence = [], None
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"\s*(`{3,}|~{3,})", line)
        if fence is None and m:
            fence = m.group(1)
            out.append((n, "", True))
            continue
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not line.strip()[len(m.group(1)):].strip():
                fence = None
                out.append((n, "", True))
            else:
                out.append((n, line, True))
            continue
        out.append((n, line, False))
    return out

anchors_cache = {}
def anchors(path):
    if path not in anchors_cache:
        seen, ids = {}, set()
        try:
            text = open(path, encoding="utf-8").read()
        except OSError:
            text = ""
        for _, line, code in split(text):
            m = None if code else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                s = slug(m.group(1))
                k = seen.get(s, 0)
                seen[s] = k + 1
                ids.add(s if k == 0 else "%s-%d" % (s, k))
        anchors_cache[path] = ids
    return anchors_cache[path]

URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s)`>\]\"']*")
PATH = re.compile(r"(?<![\w./$~-])(?:\./)?((?:%s)/[\w.@*+/-]*)" %
                  "|".join(re.escape(t) for t in tops)) if tops else None
MAKE = re.compile(r"(?<![\w$(./-])make((?:\s+(?:-[A-Za-z]\S*|[A-Z_][A-Z0-9_]*=\S*))*)"
                  r"((?:\s+[a-z][a-z0-9_-]*(?![\w./=-]))*)")
LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")

targets = make_targets()
counts = {"paths": 0, "links": 0, "targets": 0}
for f in files:
    rel = os.path.relpath(f, root)
    text = open(f, encoding="utf-8").read()
    for n, line, code in split(text):
        spans = [line] if code else re.findall(r"(`+)(.+?)\1", line)
        spans = [s if isinstance(s, str) else s[1] for s in spans]
        # make targets, in code only, shell comments left out
        for s in spans:
            for m in MAKE.finditer(re.sub(r"(^|\s)#.*", "", s)):
                opts = m.group(1).split()
                if any(o.startswith(("-C", "-f")) for o in opts):
                    continue
                for t in m.group(2).split():
                    counts["targets"] += 1
                    if t not in targets:
                        print("%s:%d: make target: make %s" % (rel, n, t))
        # links, outside code
        if not code:
            bare = re.sub(r"(`+).+?\1", "", line)
            for m in LINK.finditer(bare):
                target = m.group(1)
                if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target):
                    continue
                counts["links"] += 1
                path, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
                if not os.path.exists(dest):
                    print("%s:%d: link: %s" % (rel, n, target))
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    print("%s:%d: link anchor: %s" % (rel, n, target))
        # repository paths, anywhere but in URLs
        if PATH is None:
            continue
        plain = URL.sub(" ", line)
        for m in PATH.finditer(plain):
            p = m.group(1).rstrip(".,:;")
            after = plain[m.end():m.end() + 3]
            if after[:1] in ("<", "{", "$") or after.startswith(("...", "…")) \
                    or p.endswith("..."):
                continue
            if p.startswith("baselines/") and p.strip("/") != "baselines":
                continue
            counts["paths"] += 1
            full = os.path.join(root, p)
            ok = glob.glob(full) if "*" in p else os.path.exists(full)
            if not ok:
                print("%s:%d: path: %s" % (rel, n, p))
print("checked %(paths)d paths, %(links)d links, %(targets)d targets" % counts)
PY
}

# The checker on a made-up tree: it finds what is missing, and lets the
# exempt forms be.
fake="$T/fake"
mkdir -p "$fake/docs" "$fake/lib" "$fake/baselines" "$fake/tests/e2e"
printf 'all:\n\ttrue\nreal other: all\n\ttrue\nX := y:z\n' >"$fake/Makefile"
touch "$fake/lib/here.c" "$fake/tests/e2e/t_a.sh"
cat >"$fake/docs/x.md" <<'EOF'
# Title

## A `section`: here

Real: lib/here.c, `tests/e2e/t_*.sh`, [up](../lib/here.c), [s](#a-section-here),
`make real other`, `make -j2 SANITIZE=1 all`, `BG=1 make real`.
Exempt: https://example.com/lib/gone.c, /usr/lib/gone.c, $HOME/lib/gone.c,
~/lib/gone.c, docs/<name>.md, baselines/main.json, `make -s -C sub nosuch`,
`cmake gone`, [web](https://example.com/docs/gone.md), tests/e2e/t_${x}.sh.
Missing: lib/gone.c and `make nosuch`, [l](gone.md), [a](#no-such-heading).

```sh
make missing-in-block   # a make target in a block
```
EOF
docpaths "$fake" "$fake/docs/x.md" >"$T/fake.out" 2>&1
sed 's/^/# fake: /' "$T/fake.out"
grep -v '^checked' "$T/fake.out" | sed 's/^docs\/x.md:[0-9]*: //' | sort >"$T/fake.missing"
printf '%s\n' "link anchor: #no-such-heading" "link: gone.md" "make target: make missing-in-block" \
	"make target: make nosuch" "path: lib/gone.c" | sort >"$T/fake.want"
check "the checker reports exactly the missing path, link, anchor and targets of a made-up doc" \
	cmp -s "$T/fake.missing" "$T/fake.want"
check "... and counts what it checked there" \
	grep -qx "checked 3 paths, 4 links, 6 targets" "$T/fake.out"

# The real docs.
docs=("$ROOT/README.md" "$ROOT/CHANGELOG.md" "$ROOT"/docs/*.md)
check "there are docs to check (README.md and docs/*.md)" test "${#docs[@]}" -ge 4
total_paths=0 total_links=0 total_targets=0
for d in "${docs[@]}"; do
	rel=${d#"$ROOT"/}
	docpaths "$ROOT" "$d" >"$T/out" 2>&1
	summary=$(tail -1 "$T/out")
	missing=$(grep -v '^checked' "$T/out" | sed 's/^/#   /')
	[ -z "$missing" ] || echo "$missing"
	check "$rel names only paths, links, anchors and make targets that exist ($summary)" \
		bash -c "[ -z \"\$1\" ] && [[ \"\$2\" == checked* ]]" _ "$missing" "$summary"
	read -r p l t < <(echo "$summary" | awk '{ print $2, $4, $6 }')
	total_paths=$((total_paths + ${p:-0})) total_links=$((total_links + ${l:-0}))
	total_targets=$((total_targets + ${t:-0}))
done
# A checker that found nothing would pass: the docs name plenty.
check "the docs name at least 50 paths, 50 links and 10 make targets (found $total_paths, $total_links, $total_targets)" \
	test "$total_paths" -ge 50 -a "$total_links" -ge 50 -a "$total_targets" -ge 10
check "the README's quick start names make demo and make test" \
	bash -c "grep -q '^make demo' '$ROOT/README.md' && grep -q '^make test' '$ROOT/README.md'"
check "... both of them Makefile targets" \
	bash -c "grep -q '^demo:' '$ROOT/Makefile' && grep -q '^test:' '$ROOT/Makefile'"
finish
