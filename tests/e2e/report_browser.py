#!/usr/bin/python3
# report_browser.py PAGE.html SHOT.png -- opens a report in headless Chromium
# through chromedriver (W3C WebDriver over HTTP, stdlib only) and prints one
# JSON object: the page's chart count and their data-series, the points
# drawn, the tooltip shown when the middle point of each chart is hovered,
# every network request the page made (Network.requestWillBeSent from the performance
# log), the console messages of level SEVERE, and the document's size.  A
# full-page screenshot goes to SHOT.png.  Exit 0 when the browser answered,
# whatever it found (the caller judges); 3 when it could not be driven.
import base64, json, os, shutil, socket, subprocess, sys, tempfile, time, urllib.request

CHROME = os.environ.get("BG_CHROMIUM", "/usr/bin/chromium")
DRIVER = os.environ.get("BG_CHROMEDRIVER", "/usr/bin/chromedriver")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, body=None, timeout=60):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read().decode() or "null")["value"]


def main():
    page, shot = os.path.abspath(sys.argv[1]), sys.argv[2]
    port = free_port()
    base = "http://127.0.0.1:%d" % port
    profile = tempfile.mkdtemp(prefix="bg-chromium-")
    log = open(os.path.join(profile, "chromedriver.log"), "w")
    drv = subprocess.Popen([DRIVER, "--port=%d" % port, "--allowed-ips=127.0.0.1"],
                           stdout=log, stderr=subprocess.STDOUT)
    sid = None
    try:
        for _ in range(200):
            try:
                if call(base, "GET", "/status", timeout=2).get("ready"):
                    break
            except OSError:
                pass
            time.sleep(0.05)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:loggingPrefs": {"browser": "ALL", "performance": "ALL"},
            "goog:chromeOptions": {
                "binary": CHROME,
                # Root in CI has no sandbox; no GPU; nothing in the background
                # that could be mistaken for the page's own requests.
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                         "--no-first-run", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync",
                         "--disable-default-apps", "--window-size=1280,900"],
                "perfLoggingPrefs": {"enableNetwork": True, "enablePage": False},
            }}}}
        sid = call(base, "POST", "/session", caps, timeout=120)["sessionId"]
        s = "/session/" + sid
        url = "file://" + page
        # A blank page first, and its log drained: what Chromium's start-up
        # pages fetched is not the report's doing.
        call(base, "POST", s + "/url", {"url": "about:blank"}, timeout=120)
        call(base, "POST", s + "/se/log", {"type": "performance"})
        call(base, "POST", s + "/se/log", {"type": "browser"})
        call(base, "POST", s + "/url", {"url": url}, timeout=120)
        for _ in range(100):
            if call(base, "POST", s + "/execute/sync",
                    {"script": "return document.readyState", "args": []}) == "complete":
                break
            time.sleep(0.05)
        # A point is a vertex of its chart's trend line; hovering the chart at
        # point i must show that point's commit, subject and value.
        found = call(base, "POST", s + "/execute/sync", {"script": """
            const charts = [...document.querySelectorAll('svg.chart')];
            const hover = (svg, i) => {
                const r = svg.getBoundingClientRect(), w = svg.viewBox.baseVal.width;
                const x = r.left + (+svg.dataset.x0 + i * +svg.dataset.dx) * r.width / w;
                svg.dispatchEvent(new MouseEvent('mousemove', {clientX: x,
                    clientY: r.top + r.height / 2, bubbles: true}));
                const tip = document.querySelector('div.tip');
                return tip && !tip.hidden ? tip.textContent : null;
            };
            const tips = charts.map(c => {
                const n = c.dataset.v ? c.dataset.v.split(',').length : 0;
                return n ? {series: c.dataset.series, index: n >> 1, text: hover(c, n >> 1)}
                         : null;
            });
            const first = charts.find(c => c.dataset.v);
            const all = first ? first.dataset.v.split(',').map((_, i) => hover(first, i)) : [];
            return {charts: charts.length,
                    first_tips: all,
                    series: charts.map(c => c.getAttribute('data-series')),
                    sections: document.querySelectorAll('section.series').length,
                    points: charts.reduce((t, c) => t + (c.dataset.v ? c.dataset.v.split(',').length : 0), 0),
                    vertices: charts.reduce((t, c) => t + c.querySelector('polyline.trend').points.numberOfItems, 0),
                    circles: document.querySelectorAll('svg.chart circle.pt').length,
                    titled: document.querySelectorAll('svg.chart circle.pt > title').length,
                    tips: tips,
                    steps: document.querySelectorAll('svg.chart g.cp').length,
                    width: document.documentElement.scrollWidth,
                    height: document.documentElement.scrollHeight};""", "args": []})
        perf = call(base, "POST", s + "/se/log", {"type": "performance"})
        console = call(base, "POST", s + "/se/log", {"type": "browser"})
        requests = []
        for entry in perf:
            msg = json.loads(entry["message"])["message"]
            if msg.get("method") != "Network.requestWillBeSent":
                continue
            # Chromium's own pages (chrome://...) may still be settling.
            if msg["params"].get("documentURL", "").startswith("chrome://"):
                continue
            requests.append(msg["params"]["request"]["url"])
        found["requests"] = requests
        found["page"] = url
        found["severe"] = [c["message"] for c in console if c.get("level") == "SEVERE"]
        found["console"] = len(console)
        # The whole page in one picture (capped: a thousand charts are not for eyes).
        height = min(int(found["height"]), 6000)
        call(base, "POST", s + "/window/rect", {"width": 1280, "height": height})
        png = call(base, "GET", s + "/screenshot", timeout=120)
        with open(shot, "wb") as f:
            f.write(base64.b64decode(png))
        print(json.dumps(found))
        return 0
    except Exception as e:  # the caller prints this line and fails
        log.flush()
        sys.stderr.write("report_browser: %s: %s\n" % (type(e).__name__, e))
        with open(os.path.join(profile, "chromedriver.log")) as f:
            sys.stderr.write(f.read()[-2000:])
        return 3
    finally:
        if sid:
            try:
                call(base, "DELETE", "/session/" + sid, timeout=30)
            except Exception:
                pass
        drv.terminate()
        try:
            drv.wait(10)
        except subprocess.TimeoutExpired:
            drv.kill()
        log.close()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
