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
	"strings"
	"testing"
	"time"
)

func TestAutoscaleMarkdown(t *testing.T) {
	o := autoscaleOptions{nodes: 2000, rate: 50, ackDelay: 2 * time.Second, initial: "10.128.0.0/16", pool: "10.128.0.0/9"}
	results := []autoscaleResult{
		{autoscaling: true, longest: 850 * time.Millisecond, p99: 300 * time.Millisecond, steps: 3, declared: []string{"10.128.0.0/13"}},
		{autoscaling: false, waited: 1744, unserved: 1744},
	}
	text := autoscaleMarkdown(o, results, []string{"-autoscale"}, time.Minute, "a machine")
	for _, want := range []string{
		"| on (pool `10.128.0.0/9`) | 0 | 850ms | 300ms | 3 | 10.128.0.0/13 |",
		"| off | 1744 | unbounded (1744 nodes never got a block) |",
		"Goal (issue 14): no node waits with autoscaling where the same run without makes hundreds wait: met (0 against 1744)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	results[0].waited = 3
	if text := autoscaleMarkdown(o, results, nil, time.Minute, "m"); !strings.Contains(text, ": missed (3 against 1744)") {
		t.Errorf("a run where nodes waited meets the goal:\n%s", text)
	}
}
