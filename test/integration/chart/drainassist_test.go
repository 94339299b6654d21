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

package chart_test

import (
	"strings"
	"testing"

	"podnetwork.io/operator/test/framework/chart"
)

// TestDrainAssistPollInterval: drainAssist.pollInterval is the operator's
// --drain-assist-poll-interval, 10s by default as the flag's; the schema
// refuses a value the flag would refuse.
func TestDrainAssistPollInterval(t *testing.T) {
	root := repoRoot(t)
	tool(t, root, "helm")
	for _, tc := range []struct {
		values []string
		want   string
	}{
		{nil, "--drain-assist-poll-interval=10s"},
		{[]string{"--set", "drainAssist.pollInterval=2s"}, "--drain-assist-poll-interval=2s"},
	} {
		objs, err := chart.Render(root, tc.values...)
		if err != nil {
			t.Fatal(err)
		}
		if a := args(t, objs); !strings.Contains(a, tc.want) {
			t.Errorf("%v: args %s lack %s", tc.values, a, tc.want)
		}
	}
	helmRefuses(t, root, "drainAssist:\n  pollInterval: 10\n", "/drainAssist/pollInterval")
}
