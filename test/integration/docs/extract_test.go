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

package docs_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCommandsOf: what the suite takes from a document, without a cluster.
func TestCommandsOf(t *testing.T) {
	doc := "Text `kubectl podnetwork status\n--watch` is checked, `kubectl podnetwork status|check` too.\n" +
		"```sh\n" +
		"go install ./cmd/kubectl-podnetwork   # not the plugin\n" +
		"kubectl podnetwork status             # ranges (phase, for how long),\n" +
		"                                      # exits 1 on an error: no marker\n" +
		"kubectl podnetwork plan --add b=10.245.0.0/16 \\\n" +
		"  --remove a   # exit 1: stuck\n" +
		"kubectl podnetwork status -o json | jq -c '.ranges' # a pipe\n" +
		"kubectl podnetwork status -o jsonpath='{.a} # not a comment | nor a pipe'\n" +
		"kubectl get nodes\n" +
		"```\n" +
		"```yaml\n" +
		"kubectl podnetwork status\n" +
		"```\n" +
		"```console\n" +
		"$ kubectl podnetwork status --wtach   # exit 2\n" +
		"error: unknown flag: --wtach\n" +
		"\n" +
		"See 'kubectl podnetwork status --help' for usage.\n" +
		"```\n"
	got, err := commandsOf("doc.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []docCommand{
		{File: "doc.md", Line: 5, Lang: "sh", Text: "kubectl podnetwork status", Comment: "ranges (phase, for how long),"},
		{File: "doc.md", Line: 7, Lang: "sh", Text: "kubectl podnetwork plan --add b=10.245.0.0/16 --remove a", Comment: "exit 1: stuck"},
		{File: "doc.md", Line: 9, Lang: "sh", Text: "kubectl podnetwork status -o json", Rest: "| jq -c '.ranges'", Comment: "a pipe"},
		{File: "doc.md", Line: 10, Lang: "sh", Text: "kubectl podnetwork status -o jsonpath='{.a} # not a comment | nor a pipe'"},
		{File: "doc.md", Line: 17, Lang: "console", Text: "kubectl podnetwork status --wtach", Comment: "exit 2",
			Output: []string{"error: unknown flag: --wtach", "See 'kubectl podnetwork status --help' for usage."}},
		{File: "doc.md", Line: 1, Lang: "inline", Text: "kubectl podnetwork status --watch"},
		{File: "doc.md", Line: 2, Lang: "inline", Text: "kubectl podnetwork status"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	for i, code := range []int{0, 1, 0, 0, 2, 0, 0} {
		if c, _ := got[i].WantExit(); c != code {
			t.Errorf("%s: exit %d, want %d", got[i], c, code)
		}
	}
	if w := shellWords(`kubectl podnetwork status -o jsonpath='{.a}{"\t"}' "x y" a\ b`); !cmp.Equal(w, []string{"kubectl", "podnetwork", "status", "-o", `jsonpath={.a}{"\t"}`, "x y", "a b"}) {
		t.Errorf("shellWords: %q", w)
	}
	for in, want := range map[string]string{
		"kubectl podnetwork plan --remove NAME":                          "kubectl podnetwork plan --remove a",
		"kubectl podnetwork check --kube-proxy-configmap NAMESPACE/NAME": "kubectl podnetwork check --kube-proxy-configmap kube-system/kube-proxy",
		"kubectl podnetwork plan --add NAME=CIDR":                        "kubectl podnetwork plan --add c=10.246.0.0/16",
		"kubectl podnetwork plan --remove <range> -o NAMES":              "kubectl podnetwork plan --remove a -o NAMES",
	} {
		if got := substitute(in); got != want {
			t.Errorf("substitute(%q) = %q, want %q", in, got, want)
		}
	}
	if got, err := commandsOf("doc.md", "```bash\nKUBECONFIG=prod.yaml kubectl podnetwork check\n```\n"); err != nil || len(got) != 1 {
		t.Errorf("a command after variable assignments: %v, %v", got, err)
	}
	if _, err := commandsOf("doc.md", "```sh\nexport X=1; kubectl podnetwork status\n```\n"); err == nil {
		t.Error("a plugin command after another command: no error")
	}
}
