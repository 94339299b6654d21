package flannelstub

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteKwokStages(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "in.yaml"), filepath.Join(dir, "out.yaml")
	in := "conditions:\n  {{ range NodeConditions }}\n  - type: {{ .type }}\n  {{ end }}\nphase: Running\n"
	if err := os.WriteFile(src, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteKwokStages(src, dst); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(dst)
	want := "conditions:\n  {{ range NodeConditions }}{{ if ne .type \"NetworkUnavailable\" }}\n  - type: {{ .type }}\n  {{ end }}{{ end }}\nphase: Running\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if err := os.WriteFile(src, []byte(strings.ReplaceAll(in, "NodeConditions", "Other")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteKwokStages(src, dst); err == nil {
		t.Error("a stages file without node conditions must be an error")
	}
}
