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
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/watches"
	"podnetwork.io/operator/internal/declared"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/internal/slimnode"
	"podnetwork.io/operator/internal/text"
)

// rebuildPageSize is how many nodes one page of the start-up LIST holds, so
// 65,000 full Node objects never sit in memory at once.
const rebuildPageSize = 500

// cachePollInterval is how often the rebuild looks whether the node cache
// caught up with the leader-start read.
const cachePollInterval = 100 * time.Millisecond

// rebuilder rebuilds the allocator from the API when this replica
// becomes the leader, before anything is allocated (allocating before the
// rebuild completed is how kube-controller-manager handed out duplicate
// podCIDRs, kubernetes/kubernetes#29058). A replica that loses leadership
// exits, so every leadership gain starts here. It rebuilds again, in
// place, whenever recordStore finds that someone else rewrote the
// issued-block record (recover).
type rebuilder struct {
	state   *nodeipamcore.State
	signals *signals
	// recorder emits InvalidPodCIDR and IssuedRecordRewritten events; nil
	// emits none.
	recorder events.EventRecorder
	cache    cache.Cache
	client   client.Client // cached reads, and the consumer registration
	reader   client.Reader // API server reads
	record   *recordStore
	// maxWait bounds the wait for the node cache (Options.RebuildCacheWait).
	maxWait time.Duration
	// nodes is the node informer's store; nil: the cache's (tests set it).
	nodes nodeStore
	// metadata watches node metadata for the write probe; nil: no probe,
	// the cache must reach the leader-start read itself.
	metadata metadata.Interface
}

// nodeStore is what the rebuild reads of the node informer: the objects it
// holds and the resourceVersion its store has applied, objects and
// bookmarks (client-go's Indexer).
type nodeStore interface {
	List() []any
	LastStoreSyncResourceVersion() string
}

// NeedLeaderElection makes the rebuild, like the reconcilers, leader-only.
func (r *rebuilder) NeedLeaderElection() bool { return true }

// Start waits for the caches, rebuilds (retrying with backoff until it
// succeeds or the manager stops) and opens the gate for the reconcilers;
// then it recovers each time recordStore finds the record rewritten.
func (r *rebuilder) Start(ctx context.Context) error {
	ctx = ctrl.LoggerInto(ctx, ctrl.Log.WithName("node-ipam"))
	if !r.cache.WaitForCacheSync(ctx) {
		return nil // stopping
	}
	if err := r.rebuildUntilDone(ctx, false); err != nil {
		if ctx.Err() != nil {
			return nil // stopping
		}
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case finding := <-r.signals.recovery:
			r.recover(ctx, finding)
		}
	}
}

// errRecordChangedAtClaim wraps the failure of a rebuild whose claim found
// the record changed since the rebuild read it.
var errRecordChangedAtClaim = errors.New("the block store changed between the rebuild's read and its claim")

// rebuildUntilDone rebuilds, retrying with backoff until it succeeds or
// ctx ends. distrust rebuilds without reading the record's content
// (Rebuild.DistrustRecord). A claim that finds the record changed since
// the rebuild read it distrusts it from then on: someone else wrote it
// after this leader took over.
func (r *rebuilder) rebuildUntilDone(ctx context.Context, distrust bool) error {
	log := ctrl.LoggerFrom(ctx)
	backoff := wait.Backoff{Duration: time.Second, Factor: 2, Cap: time.Minute, Steps: math.MaxInt32}
	return wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		err := r.rebuild(ctx, distrust)
		if err == nil {
			return true, nil
		}
		if errors.Is(err, errRecordChangedAtClaim) && !distrust {
			distrust = true
			r.announce(ctx, errRecordChangedAtClaim.Error()+": someone else wrote it after this leader took over")
		}
		log.Error(err, "rebuilding the node allocator failed; retrying", "recordDistrusted", distrust)
		return false, nil
	})
}

// recover follows a rewrite of the record by someone else (recordStore
// suspended the state: nothing is handed out from then on): it says so,
// waits for the node writes already sent to be answered, and rebuilds the
// state from the API without trusting the record's content, as a new
// leader would but with every block no node holds quarantined from now
// (Rebuild.DistrustRecord); the rebuild claims the record again, and
// reopens the state. Nodes that asked meanwhile are retried then.
func (r *rebuilder) recover(ctx context.Context, finding string) {
	r.announce(ctx, finding)
	// The rebuild must see every node write that was stored: one answered
	// by then is in its read, one that is not yet the state carries over
	// (State.Open).
	_ = wait.PollUntilContextTimeout(ctx, cachePollInterval, recoveryWriteWait, true, func(context.Context) (bool, error) {
		return r.state.NodeWritesInFlight() == 0, nil
	})
	_ = r.rebuildUntilDone(ctx, true) // ends only with ctx
}

// recoveryWriteWait bounds how long a recovery waits for the node writes
// in flight; the ones still unanswered then are carried over as writes of
// unknown outcome.
const recoveryWriteWait = 10 * time.Second

// announce logs, and reports in a Warning event on PodNetwork "default",
// that the record was found rewritten and what NodeIPAM does about it.
func (r *rebuilder) announce(ctx context.Context, finding string) {
	delay := r.state.RecycleDelay()
	ctrl.LoggerFrom(ctx).Info("the block store was rewritten by someone else: allocation stopped; rebuilding from the API "+
		"with every block no node holds quarantined for one recycle delay from now, then claiming the store again",
		"store", r.record.key, "finding", finding, "recycleDelay", delay)
	if r.recorder == nil {
		return
	}
	pn, err := r.podNetwork(ctx, r.client)
	if err != nil || pn == nil {
		return // no PodNetwork to regard: the log line says it
	}
	ref := &corev1.ObjectReference{
		APIVersion: podnetworkv1alpha1.GroupVersion.String(), Kind: "PodNetwork", Name: pn.Name, UID: pn.UID, ResourceVersion: pn.ResourceVersion,
	}
	r.recorder.Eventf(ref, nil, corev1.EventTypeWarning, IssuedRecordRewrittenReason, "RebuildAllocator", "%s",
		text.Message(recordRewrittenNote(r.record.key.String(), finding, delay)))
}

// recordRewrittenNote is the note of the IssuedRecordRewritten event.
func recordRewrittenNote(record, finding string, delay time.Duration) string {
	return fmt.Sprintf("NodeIPAM found its block store, ConfigMap %s, written by someone else: %s. "+
		"It never trusts content it did not write: it stopped allocating, rebuilds its state from the nodes, "+
		"quarantines every block no node holds for one recycle delay (%s) from now, and claims the store again. "+
		"Until that delay has passed, nodes get no block unless spec.allocation.whenExhausted is ReuseOldest. "+
		"Do not apply, sync or restore this ConfigMap: it is NodeIPAM's own",
		record, finding, delay)
}

// rebuild registers the consumer, rebuilds the state from the PodNetwork
// and every node as of a read made after this replica became the leader
// (addNodes: the cache once it caught up with that read, else a paginated
// LIST; a cache that may not show the last writes of the previous leader
// yet is never used), restores the persisted quarantine, quarantines the recorded blocks no node
// holds from the rebuild unless the quarantine lists them with a time that
// proves they stayed free (nodeipamcore.ListedTrustedSince), claims the
// issued-block record (extended to every held block) and opens the gate.
// With distrust, the record was rewritten by someone else: its content is
// not read, and every block no node holds is quarantined from now
// (nodeipamcore.Rebuild.DistrustRecord).
//
// The ranges come from the cached PodNetwork, as every later sync does, so
// the phases NodeIPAM applies never go back in time; the quarantine comes
// from the API server, so blocks freed just before a failover stay
// quarantined.
func (r *rebuilder) rebuild(ctx context.Context, distrust bool) error {
	start := time.Now()
	if err := consumerClient(r.client, r.reader).Register(ctx, consumerSpec); err != nil {
		return err
	}
	cached, err := r.podNetwork(ctx, r.client)
	if err != nil {
		return err
	}
	live, err := r.podNetwork(ctx, r.reader)
	if err != nil {
		return err
	}
	set, err := watches.AutoscaledRangeSet(ctx, r.client)
	if err != nil {
		return err
	}
	b, err := nodeipamcore.NewRebuild(declared.View(cached, set))
	if err != nil {
		return err
	}
	source, err := r.addNodes(ctx, b)
	if err != nil {
		return err
	}
	log := ctrl.LoggerFrom(ctx)
	record, err := r.record.read(ctx)
	if err != nil {
		return err
	}
	var legacy *corev1.ConfigMap
	now := r.state.Now().Time
	switch {
	case distrust:
		b.DistrustRecord(r.state.RecordKnown(), now)
	case record != nil:
		if err := b.ApplyStore(record.BinaryData[RecordDataKey], now); err != nil {
			log.Info("the block store does not parse; every unheld block of every range waits one recycle delay",
				"store", r.record.key, "error", err.Error())
		}
	default:
		if legacy, err = r.record.readLegacy(ctx); err != nil {
			return err
		}
		if legacy == nil {
			// A first start, or the store deleted: status.quarantine, a
			// report, is the best that is left.
			b.RestoreQuarantine(live, now)
		} else if err := b.ApplyLegacyRecord(legacy.Data, live, now); err != nil {
			log.Info("the issued-block record of an older release has lines that do not parse; every unheld block of every range waits one recycle delay",
				"record", legacy.Name, "error", err.Error())
		}
	}
	claim, err := b.ClaimRecord(now)
	if err != nil {
		return fmt.Errorf("encoding the block store: %w", err)
	}
	if err := r.record.claimRecord(ctx, record, claim); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("%w: %w", errRecordChangedAtClaim, err)
		}
		return err
	}
	if legacy != nil {
		if err := r.record.deleteLegacy(ctx, legacy); err != nil {
			// The store is claimed and is the truth from now on; the
			// next rebuild finds the store and never reads the legacy one.
			log.Info("could not delete the issued-block record of an older release; the block store replaced it", "error", err.Error())
		}
	}
	b.RecordClaimed()
	sum := r.state.Open(b)
	r.signals.all()

	logConfigProblems(ctx, sum.Problems)
	r.reportPodCIDRProblems(ctx, sum.PodCIDRProblems)
	for _, c := range sum.Conflicts {
		log.Info("nodes have overlapping podCIDRs: another allocator is or was at work", "conflict", c.String())
	}
	log.Info("rebuilt the node allocator from the API; allocating",
		"nodesWithPodCIDRs", sum.NodesWithPodCIDRs, "podCIDRs", sum.PodCIDRs, "outsideEveryRange", sum.OutsideEveryRange,
		"conflicts", len(sum.Conflicts), "quarantined", sum.Quarantined, "heldBack", sum.QuarantinedFromRecord,
		"storeDistrusted", sum.RecordDistrusted, "migratedLegacyRecord", legacy != nil, "quarantineIgnored", sum.QuarantineIgnored,
		"ranges", sum.Ranges, "nodesFrom", source.String(), "duration", time.Since(start))
	return nil
}

// podNetwork reads PodNetwork "default" through reader; nil if it does not
// exist.
func (r *rebuilder) podNetwork(ctx context.Context, reader client.Reader) (*podnetworkv1alpha1.PodNetwork, error) {
	pn := &podnetworkv1alpha1.PodNetwork{}
	if err := reader.Get(ctx, client.ObjectKey{Name: podnetworkv1alpha1.PodNetworkName}, pn); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading PodNetwork %s: %w", podnetworkv1alpha1.PodNetworkName, err)
	}
	return pn, nil
}

// addNodes adds every node to the rebuild, as of a quorum read made now,
// after this replica became the leader: from the informer's cache once its
// store applied that read's resourceVersion (nodeipamcore.ChooseNodeSource),
// else, after at most maxWait, from a paginated LIST. The cache already holds
// every node, stripped; a second LIST of full nodes costs more memory than
// everything else the rebuild does.
func (r *rebuilder) addNodes(ctx context.Context, b *nodeipamcore.Rebuild) (nodeipamcore.NodeSource, error) {
	log := ctrl.LoggerFrom(ctx)
	store, err := r.nodeStore(ctx)
	if err != nil {
		return nodeipamcore.NodeSourceList, err
	}
	leaderRV, err := r.leaderResourceVersion(ctx)
	if err != nil {
		return nodeipamcore.NodeSourceList, err
	}
	source, reason, cacheRV := nodeipamcore.NodeSourceList, "the node informer does not show its store", ""
	if store != nil {
		start, logged := time.Now(), false
		target := r.probeWrites(ctx, store.LastStoreSyncResourceVersion(), leaderRV)
		err := wait.PollUntilContextCancel(ctx, cachePollInterval, true, func(context.Context) (bool, error) {
			cacheRV = store.LastStoreSyncResourceVersion()
			source, reason = nodeipamcore.ChooseNodeSource(cacheRV, target, time.Since(start), r.maxWait)
			if source == nodeipamcore.NodeSourceWait && !logged {
				log.Info("waiting for the node cache to catch up with the API server", "resourceVersion", cacheRV,
					"leaderResourceVersion", leaderRV, "targetResourceVersion", target, "maxWait", r.maxWait)
				logged = true
			}
			return source != nodeipamcore.NodeSourceWait, nil
		})
		if err != nil {
			return source, fmt.Errorf("waiting for the node cache to reach resourceVersion %s: %w", leaderRV, err)
		}
		if source == nodeipamcore.NodeSourceCache {
			log.V(1).Info("reading the nodes from the cache", "resourceVersion", cacheRV, "leaderResourceVersion", leaderRV,
				"targetResourceVersion", target, "waited", time.Since(start))
			return source, addCachedNodes(b, store.List())
		}
	}
	log.Info("listing every node from the API server for the rebuild", "reason", reason)
	return source, r.listNodes(ctx, b)
}

// probeTimeout is the server-side timeout of the write probe's watch; the
// API server sends a bookmark 2 s before a watch times out.
const probeTimeout int64 = 4

// probeWrites returns the resourceVersion the cache must reach to show every
// node write up to leaderRV (nodeipamcore.WriteProbe): it watches node
// metadata from the cache's resourceVersion until a bookmark or a write at
// or past leaderRV. When the cache is there already, or the probe cannot
// tell, it is leaderRV.
func (r *rebuilder) probeWrites(ctx context.Context, cacheRV, leaderRV string) string {
	if r.metadata == nil {
		return leaderRV
	}
	if source, _ := nodeipamcore.ChooseNodeSource(cacheRV, leaderRV, 0, time.Hour); source != nodeipamcore.NodeSourceWait {
		return leaderRV
	}
	log := ctrl.LoggerFrom(ctx)
	timeout := probeTimeout
	w, err := r.metadata.Resource(corev1.SchemeGroupVersion.WithResource("nodes")).Watch(ctx, metav1.ListOptions{
		ResourceVersion: cacheRV, AllowWatchBookmarks: true, TimeoutSeconds: &timeout,
	})
	if err != nil {
		log.Info("cannot watch nodes for writes the cache has not applied yet", "error", err.Error())
		return leaderRV
	}
	defer w.Stop()
	probe := &nodeipamcore.WriteProbe{From: cacheRV, Leader: leaderRV}
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			break
		}
		m, ok := ev.Object.(*metav1.PartialObjectMetadata)
		if !ok {
			break
		}
		confirmed, err := probe.Observe(m.ResourceVersion, ev.Type == watch.Bookmark)
		if err != nil || confirmed {
			break
		}
	}
	return probe.Target()
}

// nodeStore returns the node informer's store, or nil when the cache's
// informer does not show it.
func (r *rebuilder) nodeStore(ctx context.Context) (nodeStore, error) {
	if r.nodes != nil {
		return r.nodes, nil
	}
	indexer, err := watches.NodeIndexer(ctx, r.cache)
	if err != nil || indexer == nil {
		return nil, err
	}
	return indexer, nil
}

// leaderResourceVersion reads the nodes' current resourceVersion from the
// API server: a LIST of one node's metadata, without a resourceVersion, is
// a quorum read, so every write made before it has a smaller one.
func (r *rebuilder) leaderResourceVersion(ctx context.Context) (string, error) {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NodeList"))
	if err := r.reader.List(ctx, list, client.Limit(1)); err != nil {
		return "", fmt.Errorf("reading the nodes' resourceVersion: %w", err)
	}
	return list.ResourceVersion, nil
}

// addCachedNodes adds the informer's nodes to the rebuild. They are the
// cache's own objects: read, never changed.
func addCachedNodes(b *nodeipamcore.Rebuild, objs []any) error {
	for _, obj := range objs {
		n, ok := obj.(*slimnode.Node)
		if !ok {
			return fmt.Errorf("the node cache holds a %T", obj)
		}
		if err := b.AddObservedNode(n.Name, n.UID, n.ObservedPodCIDRs()); err != nil {
			return err
		}
	}
	return nil
}

// listNodes adds every node to the rebuild from a LIST of the API server,
// page by page.
func (r *rebuilder) listNodes(ctx context.Context, b *nodeipamcore.Rebuild) error {
	list := &corev1.NodeList{}
	opts := []client.ListOption{client.Limit(rebuildPageSize)}
	for {
		if err := r.reader.List(ctx, list, opts...); err != nil {
			return fmt.Errorf("listing nodes: %w", err)
		}
		for i := range list.Items {
			n := &list.Items[i]
			if err := b.AddNode(n.Name, n.UID, n.Spec.PodCIDRs); err != nil {
				return err
			}
		}
		if list.Continue == "" {
			return nil
		}
		opts = []client.ListOption{client.Limit(rebuildPageSize), client.Continue(list.Continue)}
	}
}

// maxRebuildEvents bounds the InvalidPodCIDR events one rebuild emits; the
// lifecycle's Degraded condition names the nodes anyway.
const maxRebuildEvents = 100

// reportPodCIDRProblems logs, and reports with an InvalidPodCIDR event on
// the node, the nodes found at the rebuild with podCIDRs that could not
// all be read, or only in a legacy format. Later nodes are reported when
// NodeIPAM first observes them.
func (r *rebuilder) reportPodCIDRProblems(ctx context.Context, nodes []nodeipamcore.NodePodCIDRProblems) {
	log := ctrl.LoggerFrom(ctx)
	for i, n := range nodes {
		log.Info("Node has podCIDRs NodeIPAM cannot read, or reads only in a legacy format", "node", n.Node, "problems", n.Problems)
		if r.recorder == nil || i >= maxRebuildEvents {
			continue
		}
		ref := &corev1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: n.Node, UID: n.UID}
		r.recorder.Eventf(ref, nil, corev1.EventTypeWarning, InvalidPodCIDRReason, "ObservePodCIDRs", "%s",
			text.Message(invalidPodCIDRNote(n.PodCIDRs, n.Problems)))
	}
}
