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

package chaos

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/invariants/history"
)

// dump writes what a run did into its work directory, for diagnosing a
// failure next to the processes' logs: faults.txt (the process faults as
// they happened), writes.jsonl (every mutating request of the operators,
// as the proxy logged it), history.md (the checker's tables and every
// violation) and final.json (the PodNetwork, the consumers and the
// AutoscaledRangeSet as last recorded: what a run that did not settle was
// waiting for).
func dump(dir string, res *Result, events []framework.Event) error {
	if err := dumpFinal(dir, events); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(history.Table(res.Report))
	for _, v := range res.Report.Violations {
		fmt.Fprintf(&b, "\n- %s at resourceVersion %d (%s, %s, stale %v): %s", v.Invariant, v.RV, v.Time.Format(time.RFC3339Nano), v.Process, v.StaleWrite, v.Message)
	}
	for _, w := range res.Report.Stale {
		fmt.Fprintf(&b, "\n- stale write by %s at %s: %s %s/%s %s/%s (code %d, RV %d): %s", w.Process, w.Start.Format(time.RFC3339Nano), w.Verb, w.Resource, w.Subresource, w.Namespace, w.Name, w.Code, w.RV, w.Reason)
	}
	if err := os.WriteFile(filepath.Join(dir, "history.md"), []byte(b.String()+"\n"), 0o644); err != nil { //nolint:gosec // a report
		return fmt.Errorf("writing history.md: %w", err)
	}
	faults, err := os.Create(filepath.Join(dir, "faults.txt"))
	if err != nil {
		return fmt.Errorf("creating faults.txt: %w", err)
	}
	for _, f := range res.Injected {
		_, _ = fmt.Fprintf(faults, "%s %s %s\n", f.At.Format(time.RFC3339Nano), f.Kind, f.Target)
	}
	_, _ = fmt.Fprintf(faults, "%s faults over\n", res.FaultsEnd.Format(time.RFC3339Nano))
	writes, err := os.Create(filepath.Join(dir, "writes.jsonl"))
	if err != nil {
		return errors.Join(fmt.Errorf("creating writes.jsonl: %w", err), faults.Close())
	}
	enc := json.NewEncoder(writes)
	for _, w := range res.Writes {
		if err := enc.Encode(w); err != nil {
			return errors.Join(fmt.Errorf("writing writes.jsonl: %w", err), faults.Close(), writes.Close())
		}
	}
	return errors.Join(faults.Close(), writes.Close())
}

// dumpFinal writes final.json: the last recorded state of every object
// that is not a Node or a Lease.
func dumpFinal(dir string, events []framework.Event) error {
	last := map[string]client.Object{}
	var keys []string
	for _, ev := range events {
		switch ev.Object.(type) {
		case *corev1.Node, *coordinationv1.Lease:
			continue
		}
		key := fmt.Sprintf("%T %s", ev.Object, ev.Object.GetName())
		if _, seen := last[key]; !seen {
			keys = append(keys, key)
		}
		last[key] = ev.Object
		if ev.Deleted {
			last[key] = nil
		}
	}
	slices.Sort(keys)
	var objs []client.Object
	for _, k := range keys {
		if o := last[k]; o != nil {
			objs = append(objs, o)
		}
	}
	data, err := json.MarshalIndent(objs, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding final.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "final.json"), data, 0o644); err != nil { //nolint:gosec // a report
		return fmt.Errorf("writing final.json: %w", err)
	}
	return nil
}
