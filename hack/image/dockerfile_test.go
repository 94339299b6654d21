/*
Copyright 2026 The podnetwork-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

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
