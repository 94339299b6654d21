package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDockerfile keeps the Dockerfile, for those who build with Docker,
// producing what `make image` produces: the same go build flags and the
// same image layout.
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	df := string(data)
	for _, want := range []string{
		"CGO_ENABLED=0",
		"go build " + strings.Join(goBuildFlags, " ") + " -o manager .",
		"FROM scratch",
		"COPY --from=builder /workspace/manager .",
		"USER " + imageUser,
		`ENTRYPOINT ["` + binaryPath + `"]`,
	} {
		if !strings.Contains(df, want) {
			t.Errorf("the Dockerfile lacks %q; keep it in step with hack/image", want)
		}
	}
}
