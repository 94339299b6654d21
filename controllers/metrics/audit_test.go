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

package metrics

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"podnetwork.io/operator/internal/audit"
)

func TestAudit(t *testing.T) {
	m := New()
	reg := prometheus.NewPedanticRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	m.AuditRun(2*time.Second, nil)
	m.AuditRun(time.Second, errors.New("forbidden"))
	m.AuditRun(time.Second, nil)
	// The pod checks off: only two kinds.
	m.AuditFindings(map[audit.Kind]int{audit.NetworkPolicyMissingRange: 2, audit.AdapterConfigDrift: 0})
	want := `
# HELP podnetwork_audit_findings Objects the last audit found at odds with the pod network, by kind (pod-ip-outside-node-podcidrs, pod-ip-outside-ranges, networkpolicy-missing-range, adapter-config-drift); reported by the leader, only with --enable-audit.
# TYPE podnetwork_audit_findings gauge
podnetwork_audit_findings{kind="adapter-config-drift"} 0
podnetwork_audit_findings{kind="networkpolicy-missing-range"} 2
# HELP podnetwork_audit_runs_total Audits of the cluster against the pod network, by result (success, error: a read failed and the findings were not updated).
# TYPE podnetwork_audit_runs_total counter
podnetwork_audit_runs_total{result="error"} 1
podnetwork_audit_runs_total{result="success"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "podnetwork_audit_findings", "podnetwork_audit_runs_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(m.auditDuration); n != 1 {
		t.Errorf("%d duration series", n)
	}
	var none *Metrics
	none.AuditRun(time.Second, nil)
	none.AuditFindings(map[audit.Kind]int{audit.AdapterConfigDrift: 1})
}
