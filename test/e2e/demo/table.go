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
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// printRanges prints a compact table of the tracked ranges: phase, for how
// long, who the transition waits for, block usage and the nodes still
// holding blocks of a Draining range.
func printRanges(pn *v1alpha1.PodNetwork) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "          RANGE\tCIDR\tPHASE\tFOR\tAWAITING\tBLOCKS USED/ALL\tHOLDERS\tADDED BY")
	for _, rs := range pn.Status.Ranges {
		awaiting := strings.Join(rs.Awaiting, ",")
		if awaiting == "" {
			awaiting = "-"
		}
		for _, rej := range rs.Rejections {
			awaiting += " (rejected by " + rej.Consumer + ")"
		}
		usage := "-"
		if !rs.Usage.IsZero() {
			usage = fmt.Sprintf("%d/%d", ptr.Deref(rs.Usage.Allocated, 0), rs.Usage.Capacity)
		}
		holders := "-"
		if rs.HolderCount > 0 {
			holders = fmt.Sprintf("%d: %s", rs.HolderCount, strings.Join(first(rs.Holders, 4), ","))
			if int(rs.HolderCount) > 4 {
				holders += ",..."
			}
		}
		since := "-"
		if !rs.PhaseSince.IsZero() {
			since = time.Since(rs.PhaseSince.Time).Truncate(time.Second).String()
		}
		by := "admin"
		if rs.Pool != "" {
			by = "pool " + rs.Pool
		}
		fmt.Fprintf(w, "          %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", rs.Name, rs.CIDR, rs.Phase, since, awaiting, usage, holders, by)
	}
	if len(pn.Status.Ranges) == 0 {
		fmt.Fprintln(w, "          (no range tracked)")
	}
	_ = w.Flush()
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
