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
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// writeVerbs are the apiserver request verbs that change something, as
// apiserver_request_total spells them: the HTTP method for creates and
// updates (POST, PUT), APPLY for a server-side apply patch.
var writeVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "APPLY": true, "DELETE": true, "DELETECOLLECTION": true}

// apiWrites returns the apiserver's count of write requests so far, by
// "VERB resource[/subresource]", from apiserver_request_total. Under a
// client rate limit every extra write per node costs throughput, so the
// difference over a run says what an allocator spends its QPS on.
func (b *bench) apiWrites(ctx context.Context) (map[string]float64, error) {
	raw, err := b.cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading apiserver metrics: %w", err)
	}
	out := map[string]float64{}
	for line := range strings.SplitSeq(string(raw), "\n") {
		rest, ok := strings.CutPrefix(line, "apiserver_request_total{")
		if !ok {
			continue
		}
		labelsEnd := strings.LastIndexByte(rest, '}')
		if labelsEnd < 0 {
			continue
		}
		labels := parseLabels(rest[:labelsEnd])
		if !writeVerbs[labels["verb"]] {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest[labelsEnd+1:]), 64)
		if err != nil {
			continue
		}
		key := labels["verb"] + " " + labels["resource"]
		if labels["subresource"] != "" {
			key += "/" + labels["subresource"]
		}
		out[key] += v
	}
	return out, nil
}

// parseLabels parses `a="x",b="y"` (label values here hold no commas or
// quotes).
func parseLabels(s string) map[string]string {
	out := map[string]string{}
	for kv := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if ok {
			out[k] = strings.Trim(v, `"`)
		}
	}
	return out
}

// allocatorWrites is the writes between two counts that the load generator
// did not make (it only creates nodes), as a total and a sorted breakdown.
func allocatorWrites(before, after map[string]float64) (float64, string) {
	var total float64
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(after)) {
		d := after[k] - before[k]
		if d <= 0 || k == "POST nodes" {
			continue
		}
		total += d
		parts = append(parts, fmt.Sprintf("%s %.0f", k, d))
	}
	return total, strings.Join(parts, ", ")
}
