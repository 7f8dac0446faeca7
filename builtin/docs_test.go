package builtin

import "testing"

// TestDocs: every builtin has a signature and a description for editors.
func TestDocs(t *testing.T) {
	for _, f := range Funcs() {
		if d := Docs(f.Name); d.Sig == "" || d.Text == "" {
			t.Errorf("function %s has no documentation (docs.go)", f.Name)
		}
	}
	for _, v := range Vars() {
		if d := Docs(v.Name); d.Sig == "" || d.Text == "" {
			t.Errorf("variable %s has no documentation (docs.go)", v.Name)
		}
	}
}
