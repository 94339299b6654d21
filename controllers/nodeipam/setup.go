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

package nodeipam

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/metrics"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/internal/statusedit"
)

const (
	// ConsumerName is the PodNetworkConsumer NodeIPAM registers and
	// acknowledges range phases as (internal/nodeipam, which the kubectl
	// plugin shares).
	ConsumerName = nodeipamcore.ConsumerName

	// FieldManager is the field manager of every NodeIPAM write:
	// node podCIDRs, its PodNetworkConsumer status, and the PodNetwork status
	// fields it owns (ranges[].usage, quarantine, allocationConflicts).
	FieldManager = statusedit.NodeIPAMManager

	// eventSource is the reporting controller of NodeIPAM's events.
	eventSource = "podnetwork-node-ipam"
)

// Setup registers NodeIPAM with the manager: the start-up rebuild,
// which must finish before anything is allocated, the Node reconciler that
// assigns podCIDRs, and the PodNetwork reconciler that acknowledges range
// phases and reports usage. All three run on the leader only.
func Setup(mgr ctrl.Manager, opts Options, m *metrics.Metrics) error {
	if err := opts.validate(); err != nil {
		return err
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	state := nodeipamcore.NewState(clk, nodeipamcore.NewBackoff(opts.EventBackoff, opts.MaxEventBackoff, clk),
		podnetworkv1alpha1.IPFamily(opts.PrimaryIPFamily))
	wake := newSignals()
	record := &recordStore{
		client:  mgr.GetClient(),
		reader:  mgr.GetAPIReader(),
		key:     types.NamespacedName{Namespace: opts.RecordNamespace, Name: RecordName},
		state:   state,
		signals: wake,
		metrics: m,
	}
	recorder := mgr.GetEventRecorder(eventSource)
	record.recorder = recorder
	meta, err := metadata.NewForConfig(mgr.GetConfig())
	if err != nil {
		return fmt.Errorf("creating the metadata client of the NodeIPAM rebuild: %w", err)
	}
	if err := mgr.Add(&rebuilder{
		state:    state,
		signals:  wake,
		recorder: recorder,
		cache:    mgr.GetCache(),
		client:   mgr.GetClient(),
		reader:   mgr.GetAPIReader(),
		record:   record,
		maxWait:  opts.RebuildCacheWait,
		metadata: meta,
	}); err != nil {
		return fmt.Errorf("adding the NodeIPAM rebuild: %w", err)
	}
	if err := mgr.Add(wake.recordWriter(record, recordCheckInterval)); err != nil {
		return fmt.Errorf("adding the NodeIPAM record writer: %w", err)
	}
	writer, err := newRESTPodCIDRWriter(mgr, opts.FenceWrites)
	if err != nil {
		return err
	}
	if err := (&NodeReconciler{
		Writer:   writer,
		Nodes:    mgr.GetCache(),
		Reader:   mgr.GetAPIReader(),
		Recorder: recorder,
		Metrics:  m,
		state:    state,
		signals:  wake,
		record:   record,
	}).SetupWithManager(mgr, opts.Workers); err != nil {
		return fmt.Errorf("setting up the NodeIPAM node controller: %w", err)
	}
	if err := (&NetworkReconciler{
		Client:         mgr.GetClient(),
		Reader:         mgr.GetAPIReader(),
		StatusInterval: opts.StatusInterval,
		state:          state,
		signals:        wake,
		record:         record,
	}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the NodeIPAM PodNetwork controller: %w", err)
	}
	return nil
}
