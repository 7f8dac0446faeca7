package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// httpGet returns the body of a GET of u, or an error.
func httpGet(u string) (string, error) {
	resp, err := http.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s: %s", u, resp.Status, b)
	}
	return string(b), err
}

// startPrometheus runs Debian's prometheus server on 127.0.0.1, scraping
// target every second, and returns its base URL once it is ready.
func startPrometheus(t *testing.T, target string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus not installed (Debian: prometheus)")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: gotrace
    static_configs:
      - targets: [%q]
`, target)), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + freePort(t)
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	var logs lockedWriter
	logs.mu, logs.w = new(sync.Mutex), new(bytes.Buffer)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(unix.SIGTERM)
		_ = cmd.Wait()
	})
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; {
		if _, err := httpGet(base + "/-/ready"); err == nil {
			return base
		}
		if time.Now().After(deadline) {
			logs.mu.Lock()
			defer logs.mu.Unlock()
			t.Fatalf("prometheus not ready in 30s:\n%s", logs.w)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sample is one series of a Prometheus instant query.
type sample struct {
	labels map[string]string
	value  float64
}

// query runs an instant query through Prometheus' HTTP API.
func query(t *testing.T, base, q string) []sample {
	t.Helper()
	body, err := httpGet(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Status string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil || resp.Status != "success" {
		t.Fatalf("query %s: %v: %s", q, err, body)
	}
	var out []sample
	for _, r := range resp.Data.Result {
		v, err := strconv.ParseFloat(r.Value[1].(string), 64)
		if err != nil {
			t.Fatalf("query %s: value %v", q, r.Value[1])
		}
		out = append(out, sample{r.Metric, v})
	}
	return out
}

// queryOne returns the value of a query that has one series.
func queryOne(t *testing.T, base, q string) float64 {
	t.Helper()
	s := query(t, base, q)
	if len(s) != 1 {
		t.Fatalf("query %s: %d series, want 1: %v", q, len(s), s)
	}
	return s[0].value
}

// waitQuery waits until the query has one series of value want, as
// Prometheus scrapes every second.
func waitQuery(t *testing.T, base, q string, want float64) {
	t.Helper()
	var last []sample
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		last = query(t, base, q)
		if len(last) == 1 && last[0].value == want {
			return
		}
	}
	t.Fatalf("query %s: %v after 30s, want %v", q, last, want)
}

// jsonMaps decodes the maps of -f json's output by name.
func jsonMaps(t *testing.T, stdout string) map[string]json.RawMessage {
	t.Helper()
	out := map[string]json.RawMessage{}
	for _, line := range strings.Split(stdout, "\n") {
		var rec struct {
			Type string
			Data map[string]json.RawMessage
		}
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		for k, v := range rec.Data {
			out[k] = v
		}
	}
	return out
}

// waitScrape scrapes url until the scrape holds every string of want and
// none of unwanted, and returns it.
func waitScrape(t *testing.T, url string, want, unwanted []string) string {
	t.Helper()
	var scrape string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		scrape, _ = httpGet(url)
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(scrape, w)
		}
		for _, u := range unwanted {
			ok = ok && !strings.Contains(scrape, u)
		}
		if ok {
			return scrape
		}
	}
	t.Fatalf("scrape lacks one of %q or has one of %q:\n%s", want, unwanted, scrape)
	return ""
}

// promtoolCheck runs `promtool check metrics` on a scrape, when promtool is
// installed.
func promtoolCheck(t *testing.T, scrape string) {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		return
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(scrape)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s\non:\n%s", err, out, scrape)
	}
}

// TestMetricsPrometheus runs a script with --metrics under a real
// Prometheus server scraping it every second, and checks that what
// Prometheus stored agrees with the maps gotrace prints at exit (-f json).
func TestMetricsPrometheus(t *testing.T) {
	gotrace(t)
	port := freePort(t)
	base := startPrometheus(t, "127.0.0.1:"+port)
	f, err := os.CreateTemp(t.TempDir(), "seek")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := start(t, `{"type": "printf", "data": "ready\n"}`, "-f", "json", "--metrics", "127.0.0.1:"+port, "-e", fmt.Sprintf(`
BEGIN { printf("ready\n"); }
tracepoint:raw_syscalls:sys_enter { @syscalls = count(); }
tracepoint:syscalls:sys_enter_lseek /pid == %d/ {
	@seeks = count();
	@by_whence[args.whence == 0 ? "set" : "cur"] = count();
	@offset = hist(args.offset);
	@lin = lhist(args.offset, 0, 400, 100);
	@st[(fd = args.fd)] = stats(args.offset);
	@text = "not exported";
}`, os.Getpid()))
	// 10 seeks to 0, 20 to 5, 30 to 300 (SEEK_SET), 7 by 1 (SEEK_CUR).
	seeks := []struct {
		n, off, whence int
	}{{10, 0, 0}, {20, 5, 0}, {30, 300, 0}, {7, 1, 1}}
	total := 0
	for _, sk := range seeks {
		for range sk.n {
			if _, err := unix.Seek(int(f.Fd()), int64(sk.off), sk.whence); err != nil {
				t.Fatal(err)
			}
			total++
		}
	}
	waitQuery(t, base, "gotrace_seeks_total", float64(total))
	waitQuery(t, base, `gotrace_offset_count`, float64(total))
	waitQuery(t, base, `gotrace_lin_count`, float64(total))

	busy := queryOne(t, base, "gotrace_syscalls_total")
	byWhence := map[string]float64{}
	for _, smp := range query(t, base, "gotrace_by_whence_total") {
		byWhence[smp.labels["key"]] = smp.value
	}
	buckets := map[string]float64{}
	for _, smp := range query(t, base, "gotrace_offset_bucket") {
		buckets[smp.labels["le"]] = smp.value
	}
	fd := strconv.Itoa(int(f.Fd()))
	stCount := queryOne(t, base, `gotrace_st_count{fd="`+fd+`"}`)
	stSum := queryOne(t, base, `gotrace_st_sum{fd="`+fd+`"}`)
	stAvg := queryOne(t, base, `gotrace_st_avg{fd="`+fd+`"}`)
	up := queryOne(t, base, `up{job="gotrace"}`)
	// The histograms keep the sum of the offsets beside their buckets
	// under --metrics: 10*0 + 20*5 + 30*300 + 7*1.
	const offsetSum = 9107
	for _, h := range []string{"gotrace_offset", "gotrace_lin"} {
		if got := queryOne(t, base, h+"_sum"); got != offsetSum {
			t.Errorf("%s_sum = %v, want %d", h, got, offsetSum)
		}
		if got := queryOne(t, base, h+"_count"); got != float64(total) {
			t.Errorf("%s_count = %v, want %d", h, got, total)
		}
	}

	// A raw scrape passes promtool.
	raw, err := httpGet("http://127.0.0.1:" + port + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	promtoolCheck(t, raw)
	if strings.Contains(raw, "gotrace_text") {
		t.Errorf("string map exported:\n%s", raw)
	}

	got := s.stop(os.Interrupt)
	if got.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", got.code, got.stderr)
	}
	if !strings.Contains(got.stderr, "WARNING: --metrics: map @text is not exported: its values are strings\n") {
		t.Errorf("no warning about @text; stderr:\n%s", got.stderr)
	}
	maps := jsonMaps(t, got.stdout)
	var seeksAtExit, syscallsAtExit float64
	var whenceAtExit map[string]float64
	var histAtExit []struct {
		Min, Max *float64
		Count    float64
	}
	var stAtExit map[string]struct{ Count, Average, Total float64 }
	for name, into := range map[string]any{"@seeks": &seeksAtExit, "@syscalls": &syscallsAtExit, "@by_whence": &whenceAtExit, "@offset": &histAtExit, "@st": &stAtExit} {
		if err := json.Unmarshal(maps[name], into); err != nil {
			t.Fatalf("map %s at exit: %v: %s\nstdout:\n%s", name, err, maps[name], got.stdout)
		}
	}
	if up != 1 {
		t.Errorf("up = %v", up)
	}
	if seeksAtExit != float64(total) {
		t.Errorf("@seeks at exit %v, want %d", seeksAtExit, total)
	}
	if busy <= 0 || busy > syscallsAtExit {
		t.Errorf("gotrace_syscalls_total %v, @syscalls at exit %v", busy, syscallsAtExit)
	}
	if fmt.Sprint(byWhence) != fmt.Sprint(whenceAtExit) || byWhence["set"] != 60 || byWhence["cur"] != 7 {
		t.Errorf("gotrace_by_whence_total %v, @by_whence at exit %v", byWhence, whenceAtExit)
	}
	// The histogram: each row printed at exit is the bucket le = its max,
	// cumulative.
	var cum float64
	var les []string
	for _, row := range histAtExit {
		cum += row.Count
		le := "+Inf"
		if row.Max != nil {
			le = strconv.FormatFloat(*row.Max, 'f', -1, 64)
		}
		les = append(les, le)
		if buckets[le] != cum {
			t.Errorf("gotrace_offset_bucket{le=%q} = %v, want %v (rows at exit %s)", le, buckets[le], cum, maps["@offset"])
		}
	}
	if buckets["+Inf"] != float64(total) {
		t.Errorf("gotrace_offset_bucket{le=\"+Inf\"} = %v, want %d", buckets["+Inf"], total)
	}
	var promLes []string
	for le := range buckets {
		if le != "+Inf" {
			promLes = append(promLes, le)
		}
	}
	slices.Sort(les)
	slices.Sort(promLes)
	if !slices.Equal(les, promLes) {
		t.Errorf("bucket bounds %v, rows at exit %v", promLes, les)
	}
	st := stAtExit["{.fd="+fd+"}"]
	if stCount != st.Count || stSum != st.Total || stAvg != st.Average || st.Count != float64(total) {
		t.Errorf("stats: prometheus count %v sum %v avg %v; at exit %+v", stCount, stSum, stAvg, st)
	}
}

// TestMetricsWithOutputFile: with -o the script's output goes to the file
// and the metrics are served all the same.
func TestMetricsWithOutputFile(t *testing.T) {
	gotrace(t)
	port := freePort(t)
	out := filepath.Join(t.TempDir(), "out.txt")
	s := startNoWait(t, "-o", out, "--metrics", "127.0.0.1:"+port, "-e", fmt.Sprintf(`
tracepoint:syscalls:sys_enter_getppid /pid == %d/ { @calls = count(); printf("call\n"); }`, os.Getpid()))
	s.waitLinks(1, 20*time.Second)
	getppidN(5)
	waitScrape(t, "http://127.0.0.1:"+port+"/metrics", []string{"gotrace_calls_total 5\n"}, nil)
	got := s.stop(os.Interrupt)
	if got.stdout != "" {
		t.Errorf("stdout %q with -o", got.stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "call\ncall\ncall\ncall\ncall\n\n\n@calls: 5\n"; !strings.Contains(string(b), want) {
		t.Errorf("-o file:\n%s\nwant:\n%s", b, want)
	}
}

// TestMetricsBadAddress: a bad address, or one in use, is one line at
// startup, and nothing runs.
func TestMetricsBadAddress(t *testing.T) {
	gotrace(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	inUse := l.Addr().String()
	for _, tc := range []struct{ addr, want string }{
		{"nonsense", "ERROR: --metrics nonsense: missing port in address\n"},
		{"127.0.0.1:99999", "ERROR: --metrics 127.0.0.1:99999: invalid port\n"},
		{inUse, "ERROR: --metrics " + inUse + ": address already in use\n"},
	} {
		got := run(t, "--metrics", tc.addr, "-e", `BEGIN { printf("ran\n"); exit(); }`)
		if got.code != 1 || got.stderr != tc.want || got.stdout != "" {
			t.Errorf("--metrics %s: exit %d, stdout %q, stderr %q; want 1, %q", tc.addr, got.code, got.stdout, got.stderr, tc.want)
		}
	}
	got := run(t, "--repl", "--metrics", inUse)
	if want := "ERROR: --metrics " + inUse + ": address already in use\n"; got.code != 1 || got.stderr != want {
		t.Errorf("--repl --metrics %s: exit %d, stderr %q; want 1, %q", inUse, got.code, got.stderr, want)
	}
	got = run(t, "--metrics", "127.0.0.1:0", "-e", `BEGIN { @x = count(); @x_total = 1; exit(); }`)
	if want := "ERROR: --metrics: maps @x and @x_total both make metric gotrace_x_total\n"; got.code != 1 || got.stderr != want {
		t.Errorf("clash: exit %d, stderr %q; want 1, %q", got.code, got.stderr, want)
	}
}

// TestMetricsClear: clear() and zero() show in the scrape as counter
// resets: the series goes away, or its value goes down.
func TestMetricsClear(t *testing.T) {
	gotrace(t)
	port := freePort(t)
	s := startNoWait(t, "-q", "--metrics", "127.0.0.1:"+port, "-e", fmt.Sprintf(`
tracepoint:syscalls:sys_enter_getppid /pid == %[1]d/ { @calls = count(); @kept[1] = count(); }
tracepoint:syscalls:sys_enter_getpgid /pid == %[1]d/ { clear(@calls); zero(@kept); }`, os.Getpid()))
	s.waitLinks(2, 20*time.Second)
	url := "http://127.0.0.1:" + port + "/metrics"
	getppidN(5)
	waitScrape(t, url, []string{"gotrace_calls_total 5\n", `gotrace_kept_total{key="1"} 5` + "\n"}, nil)
	unix.Getpgid(0)
	waitScrape(t, url, []string{`gotrace_kept_total{key="1"} 0` + "\n"}, []string{"gotrace_calls_total "})
	getppidN(2)
	waitScrape(t, url, []string{"gotrace_calls_total 2\n", `gotrace_kept_total{key="1"} 2` + "\n"}, nil)
	s.stop(os.Interrupt)
}

// TestMetricsHealth: gotrace's own counters are exported: updates
// dropped because a map was full, events lost.
func TestMetricsHealth(t *testing.T) {
	gotrace(t)
	port := freePort(t)
	s := startNoWait(t, "-q", "--metrics", "127.0.0.1:"+port, "-e", fmt.Sprintf(`
let @m = percpuhash(2);
tracepoint:syscalls:sys_enter_getppid /pid == %d/ { @m[nsecs] = count(); }`, os.Getpid()))
	s.waitLinks(1, 20*time.Second)
	getppidN(5)
	waitScrape(t, "http://127.0.0.1:"+port+"/metrics",
		[]string{`gotrace_map_full_drops_total{map="@m"} 3` + "\n", "gotrace_events_lost_total 0\n"}, nil)
	s.stop(os.Interrupt)
}

// TestMetricsREPL: the REPL started with --metrics serves the maps of its
// attached entries (a histogram with its sum), a map only while an entry
// that uses it is attached, and not a one-shot statement's.
func TestMetricsREPL(t *testing.T) {
	r := startREPL(t, t.TempDir(), "--metrics", "127.0.0.1:0")
	addr := regexp.MustCompile(`Metrics of the attached entries' maps at (http://127\.0\.0\.1:\d+/metrics)`).
		FindStringSubmatch(r.text())
	if addr == nil {
		t.Fatalf("the REPL does not say where the metrics are:\n%s", r.text())
	}
	url := addr[1]
	pid := os.Getpid()
	r.send(fmt.Sprintf(`tracepoint:syscalls:sys_enter_getppid /pid == %d/ { @calls = count(); @seven = hist(7); @shared[1] = count(); }`, pid))
	r.expect(`\[1\] attached`)
	r.send(fmt.Sprintf(`tracepoint:syscalls:sys_enter_getpgid /pid == %d/ { @pg = count(); @shared[2] = count(); }`, pid))
	r.expect(`\[2\] attached`)
	r.send(`@once = 42`)
	r.send(`print(@once)`)
	r.expect(`@once: 42`)
	getppidN(5)
	unix.Getpgid(0)
	scrape := waitScrape(t, url, []string{
		"gotrace_calls_total 5\n", "gotrace_seven_sum 35\n", "gotrace_seven_count 5\n", "gotrace_pg_total 1\n",
		`gotrace_shared_total{key="1"} 5` + "\n", `gotrace_shared_total{key="2"} 1` + "\n",
	}, []string{"gotrace_once"})
	promtoolCheck(t, scrape)
	// Entry 1 detached: its maps go, but @shared, which entry 2 uses,
	// stays whole.
	r.send(`\detach 1`)
	r.expect(`\[1\] detached`)
	waitScrape(t, url, []string{"gotrace_pg_total 1\n", `gotrace_shared_total{key="1"} 5` + "\n"},
		[]string{"gotrace_calls_total", "gotrace_seven"})
	// A new entry brings a detached entry's map back.
	r.send(fmt.Sprintf(`tracepoint:syscalls:sys_enter_getppid /pid == %d/ { @calls = count(); }`, pid))
	r.expect(`\[3\] attached`)
	getppidN(2)
	waitScrape(t, url, []string{"gotrace_calls_total 7\n"}, nil)
	r.send(`\detach all`)
	waitScrape(t, url, nil, []string{"gotrace_calls_total", "gotrace_pg_total", "gotrace_shared"})
	r.send(`\q`)
	select {
	case <-r.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the REPL did not end on \\q")
	}
	if _, err := httpGet(url); err == nil {
		t.Error("metrics still served after the REPL ended")
	}
}
