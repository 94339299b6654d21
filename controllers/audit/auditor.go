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

package audit

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/flowcontrol"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	adaptersctrl "podnetwork.io/operator/controllers/adapters"
	"podnetwork.io/operator/controllers/metrics"
	"podnetwork.io/operator/controllers/watches"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/audit"
	"podnetwork.io/operator/internal/text"
)

// auditor is the audit, a leader-only runnable.
type auditor struct {
	opts Options
	// cache holds the PodNetwork, the PodNetworkConsumers and the nodes,
	// which the operator watches anyway.
	cache cache.Cache
	// reader reads from the API server what the operator does not cache:
	// pods and NetworkPolicies, page by page, and the adapters' ConfigMaps.
	reader client.Reader
	// adapters are where every adapter of the registry finds its
	// configuration, enabled or not.
	adapters []adaptersctrl.Component
	recorder events.EventRecorder
	metrics  *metrics.Metrics
	// pages paces the LIST requests (Options.PagesPerSecond).
	pages flowcontrol.RateLimiter
	// announced is what the audits so far announced and had not cleared.
	// Only the leader audits, so a new leader announces each finding once
	// more; nothing else depends on it.
	announced audit.Announced
}

// NeedLeaderElection makes the audit leader-only: one replica lists the
// pods, and one announces what it finds.
func (a *auditor) NeedLeaderElection() bool { return true }

// Start audits at once, then every Options.Interval after the previous
// audit ended, until ctx ends.
func (a *auditor) Start(ctx context.Context) error {
	ctx = ctrl.LoggerInto(ctx, ctrl.Log.WithName("audit"))
	if !a.cache.WaitForCacheSync(ctx) {
		return nil // stopping
	}
	wait.JitterUntilWithContext(ctx, a.runOnce, a.opts.Interval, 0.1, true)
	return nil
}

// runOnce audits the cluster once and reports what it found. A failed
// audit changes no finding and announces nothing: the next one starts
// over. Nothing is waiting for its error, so it is logged here.
func (a *auditor) runOnce(ctx context.Context) {
	log := ctrl.LoggerFrom(ctx)
	start := time.Now()
	res, err := a.audit(ctx)
	if ctx.Err() != nil {
		return // stopping: no audit happened
	}
	a.metrics.AuditRun(time.Since(start), err)
	if err != nil {
		log.Error(err, "Auditing the cluster against the pod network")
		return
	}
	a.metrics.AuditFindings(res.Findings)
	for i := range res.Announce {
		f := &res.Announce[i]
		var related runtime.Object // a nil *ObjectReference would be a non-nil interface
		if f.Related != nil {
			related = f.Related
		}
		a.recorder.Eventf(&f.Regarding, related, corev1.EventTypeWarning, f.Reason, audit.EventAction, "%s", text.Message(f.Message))
	}
	a.announced = res.Announced
	log.V(2).Info("Audited the cluster against the pod network", "findings", res.Findings, "announced", len(res.Announce), "took", time.Since(start))
}

// audit reads the cluster and runs internal/audit over it.
func (a *auditor) audit(ctx context.Context) (audit.Result, error) {
	pn := &v1alpha1.PodNetwork{}
	switch err := a.cache.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); {
	case apierrors.IsNotFound(err):
		pn = nil
	case err != nil:
		return audit.Result{}, fmt.Errorf("reading PodNetwork %s: %w", v1alpha1.PodNetworkName, err)
	}
	nodes, err := watches.CachedNodes(ctx, a.cache)
	if err != nil {
		return audit.Result{}, err
	}
	run := audit.NewRun(audit.Input{PodNetwork: pn, Nodes: nodes, PodIPs: a.opts.PodIPs, Announced: a.announced, MaxAnnounce: a.opts.MaxEvents})
	if a.opts.PodIPs {
		err := a.listPages(ctx, func() client.ObjectList { return &corev1.PodList{} }, func(l client.ObjectList) { run.Pods(l.(*corev1.PodList).Items) })
		if err != nil {
			return audit.Result{}, fmt.Errorf("listing pods: %w", err)
		}
	}
	err = a.listPages(ctx, func() client.ObjectList { return &networkingv1.NetworkPolicyList{} },
		func(l client.ObjectList) { run.NetworkPolicies(l.(*networkingv1.NetworkPolicyList).Items) })
	if err != nil {
		return audit.Result{}, fmt.Errorf("listing NetworkPolicies: %w", err)
	}
	if err := a.adapterConfigs(ctx, run); err != nil {
		return audit.Result{}, err
	}
	return run.Result(), nil
}

// listPages lists every object of a kind from the API server, one page of
// Options.PageSize at a time, at most Options.PagesPerSecond pages a
// second, and hands each page to page: no page is kept, so the audit's
// memory does not grow with the cluster. A continue token that expired on
// the way (410 Gone, after etcd's compaction) fails the audit.
func (a *auditor) listPages(ctx context.Context, newList func() client.ObjectList, page func(client.ObjectList)) error {
	next := ""
	for {
		if err := a.pages.Wait(ctx); err != nil {
			return err
		}
		list := newList()
		if err := a.reader.List(ctx, list, client.Limit(a.opts.PageSize), client.Continue(next)); err != nil {
			return err
		}
		page(list)
		if next = list.GetContinue(); next == "" {
			return nil
		}
	}
}

// adapterConfigs checks the configuration of every adapter of the
// registry, whether it runs (its PodNetworkConsumer exists) or not.
func (a *auditor) adapterConfigs(ctx context.Context, run *audit.Run) error {
	var consumers v1alpha1.PodNetworkConsumerList
	if err := a.cache.List(ctx, &consumers); err != nil {
		return fmt.Errorf("listing PodNetworkConsumers: %w", err)
	}
	running := map[string]bool{}
	acks := map[string][]v1alpha1.ConsumerRangeStatus{}
	for i := range consumers.Items {
		running[consumers.Items[i].Name] = true
		acks[consumers.Items[i].Name] = consumers.Items[i].Status.Ranges
	}
	for i := range a.adapters {
		c := &a.adapters[i]
		cfg := adapters.Config{Adapter: c.Adapter.Name, Running: running[c.Adapter.Name], Covered: c.Adapter.Covered, Acks: acks[c.Adapter.Name]}
		cm := &corev1.ConfigMap{}
		switch err := a.reader.Get(ctx, c.ConfigMap.NamespacedName, cm); {
		case err == nil:
			cfg.Text, cfg.Found = cm.Data[c.ConfigMap.Key]
		case apierrors.IsNotFound(err):
			// No ConfigMap: not Found, and no UID to refer to.
		default:
			return fmt.Errorf("reading the %s adapter's ConfigMap %s: %w", c.Adapter.Name, c.ConfigMap.NamespacedName, err)
		}
		run.AdapterConfig(c.ConfigMap, cm.UID, cfg)
	}
	return nil
}
