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
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"podnetwork.io/operator/controllers/metrics"
	"podnetwork.io/operator/controllers/watches"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/internal/slimnode"
	"podnetwork.io/operator/internal/text"
)

const (
	// CIDRNotAvailableReason is the reason of the Warning event a node gets
	// when no block is available for it (with backoff).
	CIDRNotAvailableReason = "CIDRNotAvailable"

	// InvalidPodCIDRReason is the reason of the Warning event a node gets
	// when NodeIPAM first sees podCIDRs on it that it cannot read, or reads
	// only in a legacy format.
	InvalidPodCIDRReason = "InvalidPodCIDR"

	// IssuedRecordRewrittenReason is the reason of the Warning event on
	// PodNetwork "default" when NodeIPAM finds its block store
	// written by someone else: it stops allocating and rebuilds its state.
	IssuedRecordRewrittenReason = "IssuedRecordRewritten"

	// BlockStoreCoarsenedReason is the reason of the Warning event on the
	// block store's ConfigMap when a write first had to be coarsened to
	// fit its size budget.
	BlockStoreCoarsenedReason = "BlockStoreCoarsened"
)

// NodeReconciler assigns node.spec.podCIDRs from the Active ranges of
// the PodNetwork. It runs on the leader only, after the start-up rebuild.
type NodeReconciler struct {
	// Writer patches the podCIDRs of nodes.
	Writer podCIDRWriter
	// Nodes reads nodes: the manager's cache (watches.GetNode).
	Nodes client.Reader
	// Reader reads a node from the API server when the outcome of a write
	// to it is unknown, so the retry never trusts a stale cache.
	Reader client.Reader
	// Recorder emits CIDRNotAvailable events.
	Recorder events.EventRecorder
	// Metrics records allocation times and CIDRNotAvailable events; nil
	// records nothing.
	Metrics *metrics.Metrics

	state   *nodeipamcore.State
	signals *signals
	record  *recordStore
}

// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworks,verbs=get;list;watch
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworks/status,verbs=get;patch;update
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworkconsumers,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworkconsumers/status,verbs=get;patch;update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile performs the step the state decides for the node
// (nodeipamcore.State.Decide): it reads the node, releases or observes,
// writes the block store and the podCIDRs patch, reports the outcome back
// (State.Done), and emits the events. It decides nothing itself.
func (r *NodeReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	from := r.state.BeforeRead(req.Name)
	if from == nodeipamcore.ReadNothing {
		return reconcile.Result{}, nil // retried when the state opens
	}
	node, err := r.readNode(ctx, req.Name, from)
	if err != nil && !apierrors.IsNotFound(err) {
		return reconcile.Result{}, err
	}
	step, err := r.state.Decide(req.Name, node)
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("allocating podCIDRs for node %s: %w", req.Name, err)
	}
	r.released(ctx, step)
	if step.Observed != nil {
		r.observed(ctx, node, *step.Observed)
	}
	if step.Unavailable != nil {
		r.unavailable(ctx, node, step)
	}
	if step.Patch == nil {
		if step.StoreSoon {
			// Adopted podCIDRs: the node has them already, nothing waits
			// for this write. A rewritten store is recorded by the
			// recovery's claim, which extends it to every held block.
			if err := r.record.sync(ctx); err != nil && !errors.Is(err, nodeipamcore.ErrRecordRewritten) {
				return reconcile.Result{}, err
			}
		}
		return reconcile.Result{RequeueAfter: step.RetryAfter}, nil
	}
	if step.StoreFirst {
		// The store must hold the blocks before any node does.
		if err := r.record.sync(ctx); err != nil || !r.state.RecordCovers(step.Patch.Blocks) {
			r.done(ctx, node.Name, step.Patch, nodeipamcore.WriteNotSent)
			if errors.Is(err, nodeipamcore.ErrRecordRewritten) && r.state.Park(node.Name) {
				return reconcile.Result{}, nil // retried when the recovery reopens the state
			}
			return reconcile.Result{}, fmt.Errorf("storing blocks %v in the block store before writing them to node %s: %w", step.Patch.Blocks, node.Name,
				cmp.Or(err, errors.New("the store does not hold them yet")))
		}
	}
	if step.StoreSoon {
		r.signals.recordAhead()
	}
	return r.write(ctx, node.Name, step.Patch)
}

// released logs the blocks a deleted or replaced node gave up, into
// quarantine, and retries the nodes that wait for a block.
func (r *NodeReconciler) released(ctx context.Context, step nodeipamcore.NodeStep) {
	if len(step.Released) == 0 {
		return
	}
	msg := "released podCIDRs of a deleted node"
	if step.Replaced {
		msg = "released podCIDRs of a replaced node object"
	}
	ctrl.LoggerFrom(ctx).Info(msg, "podCIDRs", step.Released)
	r.signals.all()
}

// observed reports what the podCIDRs a node has told the state, which
// confirmed or adopted them.
func (r *NodeReconciler) observed(ctx context.Context, node *slimnode.Node, o nodeipamcore.Observation) {
	if !o.Changed {
		return
	}
	log := ctrl.LoggerFrom(ctx)
	if o.Adopted {
		log.V(1).Info("adopted podCIDRs NodeIPAM did not assign", "podCIDRs", o.PodCIDRs)
	}
	if len(o.Problems) > 0 {
		log.Info("Node has podCIDRs NodeIPAM cannot read, or reads only in a legacy format", "problems", o.Problems)
		r.Recorder.Eventf(node, nil, corev1.EventTypeWarning, InvalidPodCIDRReason, "ObservePodCIDRs", "%s",
			text.Message(invalidPodCIDRNote(o.PodCIDRs, o.Problems)))
	}
	for _, c := range o.Conflicts {
		log.Info("node has a podCIDR overlapping another node's: another allocator is at work",
			"podCIDR", c.Prefix, "otherNode", c.Other, "otherPodCIDR", c.OtherPrefix, "conflict", c.String())
	}
	r.signals.reconcileNetwork()
}

// done reports a write's outcome to the state; blocks returned to the pool
// retry the nodes that wait for one.
func (r *NodeReconciler) done(ctx context.Context, name string, p *nodeipamcore.Patch, o nodeipamcore.WriteOutcome) {
	waited := r.state.Done(name, p, o)
	switch o {
	case nodeipamcore.WriteStored:
		r.Metrics.ObserveAllocation(waited)
		r.signals.wrote()
		ctrl.LoggerFrom(ctx).Info("assigned podCIDRs", "podCIDRs", p.Blocks)
	case nodeipamcore.WriteNotSent, nodeipamcore.WriteRejected:
		r.signals.all()
	case nodeipamcore.WriteUnknown:
	}
}

// readNode reads the node from the cache, or from the API server when a
// write to it had an unknown outcome; nil with a NotFound error when it is
// gone.
func (r *NodeReconciler) readNode(ctx context.Context, name string, from nodeipamcore.ReadFrom) (*slimnode.Node, error) {
	reader := r.Nodes
	if from == nodeipamcore.ReadAPI {
		reader = r.Reader
	}
	node, err := watches.GetNode(ctx, reader, name)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, err
		}
		return nil, fmt.Errorf("reading node %s: %w", name, err)
	}
	return node, nil
}

// write stores the blocks as the node's podCIDRs with a merge patch that
// carries the node's resourceVersion, so it applies only to the node as read
// (with empty podCIDRs), and reports the outcome to the state: stored →
// confirmed; certainly not stored → returned to the pool; unknown → kept
// until the node is read again from the API server.
func (r *NodeReconciler) write(ctx context.Context, name string, p *nodeipamcore.Patch) (reconcile.Result, error) {
	cidrs := make([]string, len(p.Blocks))
	for i, b := range p.Blocks {
		cidrs[i] = b.String()
	}
	patch, err := podCIDRsPatch(p.ResourceVersion, cidrs)
	if err != nil {
		r.done(ctx, name, p, nodeipamcore.WriteNotSent)
		return reconcile.Result{}, err
	}
	err = r.Writer.patchPodCIDRs(ctx, name, patch)
	switch {
	case err == nil:
		r.done(ctx, name, p, nodeipamcore.WriteStored)
		return reconcile.Result{}, nil
	case apierrors.IsNotFound(err):
		r.done(ctx, name, p, nodeipamcore.WriteRejected)
		return reconcile.Result{}, nil // the delete event follows
	case certainlyNotStored(err):
		r.done(ctx, name, p, nodeipamcore.WriteRejected)
		return reconcile.Result{}, fmt.Errorf("writing podCIDRs %v to node %s: %w", cidrs, name, err)
	default:
		r.done(ctx, name, p, nodeipamcore.WriteUnknown)
		return reconcile.Result{}, fmt.Errorf("writing podCIDRs %v to node %s, outcome unknown (the blocks stay reserved until the node is read again): %w",
			cidrs, name, err)
	}
}

// podCIDRsPatch is the JSON merge patch that sets podCIDR and podCIDRs while
// the node's resourceVersion is still resourceVersion (the API server
// answers 409 otherwise). Written out rather than diffed from two copies of
// the node: this runs once per node, and the diff cost more than the rest
// of the allocation.
func podCIDRsPatch(resourceVersion string, cidrs []string) ([]byte, error) {
	if resourceVersion == "" || len(cidrs) == 0 {
		// An empty resourceVersion would make the patch unconditional.
		return nil, fmt.Errorf("a podCIDRs patch needs a resourceVersion and blocks, got %q and %v", resourceVersion, cidrs)
	}
	type spec struct {
		PodCIDR  string   `json:"podCIDR"`
		PodCIDRs []string `json:"podCIDRs"`
	}
	type meta struct {
		ResourceVersion string `json:"resourceVersion"`
	}
	data, err := json.Marshal(struct {
		Metadata meta `json:"metadata"`
		Spec     spec `json:"spec"`
	}{meta{resourceVersion}, spec{cidrs[0], cidrs}})
	if err != nil {
		return nil, fmt.Errorf("encoding the podCIDRs patch: %w", err)
	}
	return data, nil
}

// certainlyNotStored reports whether the API server answered a write with an
// error that guarantees it stored nothing. Timeouts, server errors and lost
// connections do not: the write may have been applied.
func certainlyNotStored(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsNotFound(err) ||
		apierrors.IsMethodNotSupported(err) || apierrors.IsRequestEntityTooLargeError(err) ||
		apierrors.IsUnsupportedMediaType(err) || apierrors.IsTooManyRequests(err)
}

// unavailable reports a node that got no blocks: a CIDRNotAvailable
// warning when the state says one is due (at most once per backoff period).
// When no range is Active at all the node just waits, and the step has no
// Unavailability.
func (r *NodeReconciler) unavailable(ctx context.Context, node *slimnode.Node, step nodeipamcore.NodeStep) {
	u := step.Unavailable
	if u.Emit {
		r.Metrics.CIDRNotAvailable()
		r.Recorder.Eventf(node, nil, corev1.EventTypeWarning, CIDRNotAvailableReason, "AllocatePodCIDR", "%s", u.Err.Message())
	}
	ctrl.LoggerFrom(ctx).V(1).Info("no podCIDR available for node", "candidates", u.Families,
		"reasons", u.Err.Reasons, "familyWait", u.Err.FamilyWait, "retryIn", step.RetryAfter, "eventEmitted", u.Emit)
}

// SetupWithManager watches nodes (only the changes NodeIPAM acts on) and
// the retry signal of the shared state, with workers reconciling in
// parallel. An update that brings podCIDRs the state already holds for the
// node, NodeIPAM's own write coming back, is not reconciled: it would
// change nothing (State.Settled), and in a burst it was every other
// reconcile.
func (r *NodeReconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	relevant := func(oldNode, newNode *slimnode.Node) bool {
		return nodeRelevant(oldNode, newNode) && !r.state.Settled(newNode)
	}
	// Until the rebuild opens the state, an event only parks its node
	// instead of queueing it: at leader start the informer's initial list
	// is one event per node, and a queue of 65,000 requests, each
	// reconciled only to be parked, cost 45 MB of heap at start-up. The
	// parked nodes the rebuild did not settle are queued when it opens.
	closedGate := predicate.NewPredicateFuncs(func(o client.Object) bool { return !r.state.Park(o.GetName()) })
	return ctrl.NewControllerManagedBy(mgr).
		Named("node-ipam").
		For(&corev1.Node{}, builder.WithPredicates(watches.NodeUpdate(relevant), closedGate)).
		WatchesRawSource(r.signals.nodeSource(r.state, mgr.GetCache())).
		// A plain work queue, not controller-runtime's priority queue: every
		// request here has the same priority (the informer's initial list,
		// which the priority queue would rank lower, is parked instead), so
		// its B-tree is bookkeeping without use on the burst's hot path.
		WithOptions(controller.Options{MaxConcurrentReconciles: workers, UsePriorityQueue: ptr.To(false)}).
		Complete(r)
}

// nodeRelevant reports the node updates NodeIPAM acts on: the node
// replaced or its podCIDRs changing, and for a node still without podCIDRs
// its labels (range nodeSelectors) or its deletion starting. Heartbeats and
// image updates do not wake it.
func nodeRelevant(oldNode, newNode *slimnode.Node) bool {
	if oldNode.UID != newNode.UID || !slices.Equal(oldNode.Spec.PodCIDRs, newNode.Spec.PodCIDRs) {
		return true
	}
	return len(newNode.Spec.PodCIDRs) == 0 &&
		(!maps.Equal(oldNode.Labels, newNode.Labels) || oldNode.DeletionTimestamp.IsZero() != newNode.DeletionTimestamp.IsZero())
}

// invalidPodCIDRNote says what NodeIPAM made of podCIDRs it cannot read, or
// reads only in a legacy format.
func invalidPodCIDRNote(read []netip.Prefix, problems []string) string {
	what := "NodeIPAM reserves nothing for the podCIDRs it cannot read"
	if len(read) > 0 {
		what = fmt.Sprintf("NodeIPAM reserves %v for this node, as Kubernetes reads the values, and nothing for the ones it cannot read", read)
	}
	return fmt.Sprintf("podCIDRs %s. %s; the range lifecycle counts a node with an unreadable podCIDR as a holder of every Draining range. Replace the node to fix it (podCIDRs cannot be changed)",
		strings.Join(problems, "; "), what)
}
