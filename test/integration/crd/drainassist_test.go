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

package crd_test

import (
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
)

// drainAssisted returns PodNetwork default with spec.drainAssist.
func drainAssisted(da map[string]any) map[string]any {
	o := podNetwork(rng("a", "10.64.0.0/16"))
	o["spec"].(map[string]any)["drainAssist"] = da
	return o
}

func TestDrainAssistRules(t *testing.T) {
	crd := loadCRD(t, "podnetwork.io_podnetworks.yaml")
	tests := []struct {
		name    string
		da      map[string]any
		wantErr string
	}{
		{name: "off without a handover", da: map[string]any{"mode": "Off"}},
		{name: "auto with Delete", da: map[string]any{"mode": "Auto", "handover": "Delete"}},
		{name: "recommend with Condition", da: map[string]any{"mode": "Recommend", "handover": "Condition"}},
		{name: "a number", da: map[string]any{"mode": "Auto", "handover": "Delete", "maxUnavailable": int64(3)}},
		{name: "a percentage", da: map[string]any{"mode": "Auto", "handover": "Delete", "maxUnavailable": "10%"}},
		{name: "100 percent", da: map[string]any{"mode": "Auto", "handover": "Delete", "maxUnavailable": "100%"}},
		{name: "a timeout", da: map[string]any{"mode": "Auto", "handover": "Delete", "nodeTimeoutSeconds": int64(600)}},
		{
			name: "auto without a handover", da: map[string]any{"mode": "Auto"},
			wantErr: "handover is required unless mode is Off: Delete (Karpenter replaces a deleted node) or Condition (a Cluster API MachineHealthCheck replaces a node with the PodCIDRReplacementNeeded condition)",
		},
		{name: "recommend without a handover", da: map[string]any{"mode": "Recommend"}, wantErr: "handover is required unless mode is Off"},
		{name: "empty", da: map[string]any{}, wantErr: "should have at least 1 properties"},
		{name: "unknown mode", da: map[string]any{"mode": "Sometimes", "handover": "Delete"}, wantErr: "Unsupported value"},
		{name: "unknown handover", da: map[string]any{"mode": "Auto", "handover": "Reboot"}, wantErr: "Unsupported value"},
		{name: "zero nodes", da: map[string]any{"mode": "Auto", "handover": "Delete", "maxUnavailable": int64(0)}, wantErr: `maxUnavailable must be a number of nodes of at least 1, or a percentage from 1% to 100% such as "10%"`},
		{name: "zero percent", da: map[string]any{"mode": "Auto", "handover": "Delete", "maxUnavailable": "0%"}, wantErr: "maxUnavailable must be a number of nodes of at least 1"},
		{name: "over 100 percent", da: map[string]any{"mode": "Auto", "handover": "Delete", "maxUnavailable": "101%"}, wantErr: "maxUnavailable must be a number of nodes of at least 1"},
		{name: "a number as a string", da: map[string]any{"mode": "Auto", "handover": "Delete", "maxUnavailable": "3"}, wantErr: "maxUnavailable must be a number of nodes of at least 1"},
		{name: "timeout too short", da: map[string]any{"mode": "Auto", "handover": "Delete", "nodeTimeoutSeconds": int64(59)}, wantErr: "should be greater than or equal to 60"},
		{name: "timeout too long", da: map[string]any{"mode": "Auto", "handover": "Delete", "nodeTimeoutSeconds": int64(604801)}, wantErr: "should be less than or equal to 604800"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			errs := validateAll(t, crd, drainAssisted(tc.da), nil)
			if tc.wantErr == "" {
				g.Expect(errs).To(BeEmpty())
				return
			}
			g.Expect(errString(errs)).To(ContainSubstring(tc.wantErr))
		})
	}
}

func TestDrainAssistDefaults(t *testing.T) {
	g := NewWithT(t)
	pn := drainAssisted(map[string]any{"handover": "Delete"})
	defaulting.Default(pn, structuralSchema(t, loadCRD(t, "podnetwork.io_podnetworks.yaml")))
	da := pn["spec"].(map[string]any)["drainAssist"].(map[string]any)
	g.Expect(da["mode"]).To(Equal("Off"))
	g.Expect(da["maxUnavailable"]).To(Equal(int64(1)))
	g.Expect(da["nodeTimeoutSeconds"]).To(Equal(int64(1800)))
}
