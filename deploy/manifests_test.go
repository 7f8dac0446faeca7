package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// discovery is what the fake API server answers for each discovery path:
// the kinds of the manifests, so that kubectl maps them to resources
// without a cluster.
var discovery = map[string]string{
	"/api": `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]}`,
	"/apis": `{"kind":"APIGroupList","apiVersion":"v1","groups":[
		{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
		{"name":"batch","versions":[{"groupVersion":"batch/v1","version":"v1"}],"preferredVersion":{"groupVersion":"batch/v1","version":"v1"}},
		{"name":"monitoring.coreos.com","versions":[{"groupVersion":"monitoring.coreos.com/v1","version":"v1"}],"preferredVersion":{"groupVersion":"monitoring.coreos.com/v1","version":"v1"}}]}`,
	"/api/v1":                        resources("v1", "namespaces:Namespace:false", "serviceaccounts:ServiceAccount:true", "configmaps:ConfigMap:true"),
	"/apis/apps/v1":                  resources("apps/v1", "daemonsets:DaemonSet:true"),
	"/apis/batch/v1":                 resources("batch/v1", "jobs:Job:true"),
	"/apis/monitoring.coreos.com/v1": resources("monitoring.coreos.com/v1", "podmonitors:PodMonitor:true"),
}

// resources is an APIResourceList of "plural:Kind:namespaced" entries.
func resources(gv string, rs ...string) string {
	var items []string
	for _, r := range rs {
		f := strings.Split(r, ":")
		items = append(items, fmt.Sprintf(`{"name":%q,"singularName":"","namespaced":%s,"kind":%q,"verbs":["create","get","list"]}`, f[0], f[2], f[1]))
	}
	return fmt.Sprintf(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":%q,"resources":[%s]}`, gv, strings.Join(items, ","))
}

// kubectl runs `kubectl create --dry-run=client --validate=false -o
// FORMAT -f file` against a fake API server on 127.0.0.1 that answers
// discovery only: kubectl needs it to map kinds to resources, and nothing
// is sent to a cluster.
func kubectl(t *testing.T, file, format string) []byte {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed (Debian: kubernetes-client)")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := discovery[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "config")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: offline, cluster: {server: %q}}]
users: [{name: offline, user: {}}]
contexts: [{name: offline, context: {cluster: offline, user: offline}}]
current-context: offline
`, srv.URL)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(dir, "cache"),
		"create", "--dry-run=client", "--validate=false", "-o", format, "-f", filepath.Join("kubernetes", file))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl create -f %s: %v\n%s", file, err, stderr.String())
	}
	return out
}

// objects returns the objects kubectl printed as JSON: a stream of
// objects, each maybe a List.
func objects(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var list []map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("kubectl's JSON: %v\n%s", err, out)
		}
		if obj["kind"] != "List" {
			list = append(list, obj)
			continue
		}
		for _, it := range obj["items"].([]any) {
			list = append(list, it.(map[string]any))
		}
	}
	return list
}

// get follows a path of keys and indexes through decoded JSON.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// byKind returns the object of the given kind.
func byKind(t *testing.T, objs []map[string]any, kind string) map[string]any {
	t.Helper()
	for _, o := range objs {
		if o["kind"] == kind {
			return o
		}
	}
	t.Fatalf("no %s among the objects", kind)
	return nil
}

// checkTracer checks the pod spec of a gotrace pod: the host's pid
// namespace, exactly CAP_BPF and CAP_PERFMON, and the host mounts.
func checkTracer(t *testing.T, pod any) {
	t.Helper()
	if get(pod, "hostPID") != true {
		t.Errorf("hostPID is not true")
	}
	c := get(pod, "containers", 0)
	sc := get(c, "securityContext")
	if get(sc, "privileged") != false {
		t.Errorf("privileged: %v", get(sc, "privileged"))
	}
	caps := fmt.Sprint(get(sc, "capabilities", "add"))
	if caps != "[BPF PERFMON]" {
		t.Errorf("capabilities added %s, want [BPF PERFMON]", caps)
	}
	if drop := fmt.Sprint(get(sc, "capabilities", "drop")); drop != "[ALL]" {
		t.Errorf("capabilities dropped %s, want [ALL]", drop)
	}
	var hostPaths []string
	for _, v := range get(pod, "volumes").([]any) {
		if p, ok := get(v, "hostPath", "path").(string); ok {
			hostPaths = append(hostPaths, p)
		}
	}
	slices.Sort(hostPaths)
	if got := strings.Join(hostPaths, " "); got != "/proc /sys/fs/bpf /sys/kernel/btf /sys/kernel/tracing" {
		t.Errorf("host paths %s", got)
	}
	mounted := map[string]bool{}
	for _, m := range get(c, "volumeMounts").([]any) {
		mounted[get(m, "name").(string)] = true
	}
	for _, v := range get(pod, "volumes").([]any) {
		if n := get(v, "name").(string); !mounted[n] {
			t.Errorf("volume %s is not mounted", n)
		}
	}
}

func TestDaemonSet(t *testing.T) {
	kubectl(t, "daemonset.yaml", "yaml")
	objs := objects(t, kubectl(t, "daemonset.yaml", "json"))
	ds := byKind(t, objs, "DaemonSet")
	pod := get(ds, "spec", "template", "spec")
	checkTracer(t, pod)
	args := fmt.Sprint(get(pod, "containers", 0, "args"))
	if args != "[--metrics :9435 -q /etc/gotrace/script.bt]" {
		t.Errorf("args %s", args)
	}
	if p := get(pod, "containers", 0, "ports", 0, "containerPort"); p != 9435.0 {
		t.Errorf("metrics port %v", p)
	}
	ann := get(ds, "spec", "template", "metadata", "annotations")
	for k, want := range map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9435", "prometheus.io/path": "/metrics"} {
		if got := get(ann, k); got != want {
			t.Errorf("annotation %s = %v, want %s", k, got, want)
		}
	}
	cm := byKind(t, objs, "ConfigMap")
	if s, _ := get(cm, "data", "script.bt").(string); !strings.Contains(s, "count()") {
		t.Errorf("the ConfigMap's script: %q", s)
	}
}

func TestPodMonitor(t *testing.T) {
	kubectl(t, "podmonitor.yaml", "yaml")
	pm := byKind(t, objects(t, kubectl(t, "podmonitor.yaml", "json")), "PodMonitor")
	if got := get(pm, "spec", "selector", "matchLabels", "app.kubernetes.io/name"); got != "gotrace" {
		t.Errorf("selector %v", got)
	}
	if got := get(pm, "spec", "podMetricsEndpoints", 0, "port"); got != "metrics" {
		t.Errorf("endpoint port %v", got)
	}
}

func TestOneShotJob(t *testing.T) {
	kubectl(t, "job.yaml", "yaml")
	job := byKind(t, objects(t, kubectl(t, "job.yaml", "json")), "Job")
	pod := get(job, "spec", "template", "spec")
	checkTracer(t, pod)
	if get(pod, "nodeName") != "NODE" || get(pod, "restartPolicy") != "Never" {
		t.Errorf("nodeName %v, restartPolicy %v", get(pod, "nodeName"), get(pod, "restartPolicy"))
	}
	if get(job, "spec", "backoffLimit") != 0.0 {
		t.Errorf("backoffLimit %v", get(job, "spec", "backoffLimit"))
	}
}
