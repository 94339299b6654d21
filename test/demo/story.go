package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

const (
	firstRange  = "first"
	firstCIDR   = "10.100.0.0/19" // 32 node blocks of /24
	secondRange = "second"
	secondCIDR  = "10.100.64.0/18" // 64 node blocks of /24
	stepTimeout = 2 * time.Minute
)

// story walks the admin's story in three acts.
func (d *demo) story() error {
	ctx := context.Background()
	steps := []func(context.Context) error{d.actOne, d.actTwo, d.actThree}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	d.showMetrics(ctx)
	if err := d.checker.CheckCluster(ctx, d.admin); err != nil {
		return fmt.Errorf("invariant check failed: %w", err)
	}
	say("invariants hold: no two nodes have overlapping podCIDRs and every podCIDR lies in a range that was Active")
	say("done: a range was added and filled, a second one added, and the first retired once its nodes were replaced")
	return nil
}

// actOne: one small range goes Pending → Active; nodes join and get blocks.
func (d *demo) actOne(ctx context.Context) error {
	fmt.Println()
	say("ACT 1: the admin creates PodNetwork \"default\" with one range %q %s (32 node blocks of /24)", firstRange, firstCIDR)
	pn := &v1alpha1.PodNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName},
		Spec: v1alpha1.PodNetworkSpec{
			Ranges:     []v1alpha1.PodCIDRRange{{Name: firstRange, CIDR: firstCIDR}},
			Allocation: v1alpha1.AllocationPolicy{RecycleDelaySeconds: ptr.To[int32](5)},
		},
	}
	if err := d.admin.Create(ctx, pn); err != nil {
		return fmt.Errorf("creating the PodNetwork: %w", err)
	}
	if err := d.waitPhase(ctx, firstRange, v1alpha1.RangePhasePending); err != nil {
		return err
	}
	say("%q is Pending: no node gets a block from it until every consumer has acknowledged it", firstRange)
	d.table(ctx)
	if err := d.waitPhase(ctx, firstRange, v1alpha1.RangePhaseActive); err != nil {
		return err
	}
	say("every consumer acknowledged: %q is Active", firstRange)
	d.table(ctx)

	say("%d nodes join", d.nodes)
	if err := d.addNodes(ctx, "node", 0, d.nodes); err != nil {
		return err
	}
	if err := d.waitAllocated(ctx, d.nodes); err != nil {
		return err
	}
	say("all %d nodes have a podCIDR from %q", d.nodes, firstRange)
	d.table(ctx)
	return nil
}

// actTwo: the range fills up, nodes wait; a second range is added.
func (d *demo) actTwo(ctx context.Context) error {
	fmt.Println()
	extra := 32 - d.nodes + 4
	say("ACT 2: %d more nodes join; %q has room for %d of them", extra, firstRange, 32-d.nodes)
	if err := d.addNodes(ctx, "node", d.nodes, extra); err != nil {
		return err
	}
	total := d.nodes + extra
	if err := d.waitAllocated(ctx, 32); err != nil {
		return err
	}
	if err := waitFor("CIDRNotAvailable events", stepTimeout, func(ctx context.Context) (bool, error) {
		return len(d.cidrNotAvailable(ctx)) > 0, nil
	}); err != nil {
		return err
	}
	waiting := d.cidrNotAvailable(ctx)
	say("%q is full; the nodes without a block wait, and say why:", firstRange)
	for _, line := range first(waiting, 2) {
		fmt.Println("          " + line)
	}
	d.table(ctx)

	say("the admin adds a second range %q %s", secondRange, secondCIDR)
	if err := d.editRanges(ctx, func(r []v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
		return append(r, v1alpha1.PodCIDRRange{Name: secondRange, CIDR: secondCIDR})
	}); err != nil {
		return err
	}
	if err := d.waitPhase(ctx, secondRange, v1alpha1.RangePhasePending); err != nil {
		return err
	}
	say("%q is Pending until every consumer acknowledges it; the waiting nodes still wait", secondRange)
	d.table(ctx)
	if err := d.waitPhase(ctx, secondRange, v1alpha1.RangePhaseActive); err != nil {
		return err
	}
	say("%q is Active", secondRange)
	if err := d.waitAllocated(ctx, total); err != nil {
		return err
	}
	say("the %d waiting nodes got blocks from %q", total-32, secondRange)
	d.table(ctx)
	return nil
}

// actThree: the first range is retired; its nodes are replaced.
func (d *demo) actThree(ctx context.Context) error {
	fmt.Println()
	say("ACT 3: the admin removes %q from the spec to retire it", firstRange)
	if err := d.editRanges(ctx, func(r []v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
		var out []v1alpha1.PodCIDRRange
		for _, x := range r {
			if x.Name != firstRange {
				out = append(out, x)
			}
		}
		return out
	}); err != nil {
		return err
	}
	if err := d.waitPhase(ctx, firstRange, v1alpha1.RangePhaseDraining); err != nil {
		return err
	}
	if err := waitFor("the holders of "+firstRange, stepTimeout, func(ctx context.Context) (bool, error) {
		rs, _ := d.rangeStatus(ctx, firstRange)
		return rs != nil && rs.HolderCount > 0, nil
	}); err != nil {
		return err
	}
	rs, _ := d.rangeStatus(ctx, firstRange)
	say("%q is Draining: no new blocks from it; %d nodes still hold blocks in it, so it cannot be released yet", firstRange, rs.HolderCount)
	d.table(ctx)

	holders, err := d.holders(ctx, firstCIDR)
	if err != nil {
		return err
	}
	say("the admin replaces those %d nodes (drain, delete, new node)", len(holders))
	for _, name := range holders {
		if err := d.admin.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting node %s: %w", name, err)
		}
		if err := d.admin.Create(ctx, newNode(name+"-new", 0)); err != nil {
			return fmt.Errorf("creating node %s-new: %w", name, err)
		}
	}
	if err := d.waitPhase(ctx, firstRange, v1alpha1.RangePhaseReleased); err != nil {
		return err
	}
	say("no node holds a block in %q and every consumer stopped using it: Released", firstRange)
	d.table(ctx)
	if err := waitFor(firstRange+" to be purged", stepTimeout, func(ctx context.Context) (bool, error) {
		rs, err := d.rangeStatus(ctx, firstRange)
		return rs == nil, err
	}); err != nil {
		return err
	}
	var nodes corev1.NodeList
	if err := d.admin.List(ctx, &nodes); err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	say("every consumer removed it from its configuration: %q is purged; %d nodes all hold blocks in %q", firstRange, len(nodes.Items), secondRange)
	d.table(ctx)
	if err := waitFor("PodNetwork Ready", stepTimeout, func(ctx context.Context) (bool, error) {
		pn, err := d.podNetwork(ctx)
		return err == nil && meta.IsStatusConditionTrue(pn.Status.Conditions, v1alpha1.ReadyCondition), nil
	}); err != nil {
		return err
	}
	pn, _ := d.podNetwork(ctx)
	c := meta.FindStatusCondition(pn.Status.Conditions, v1alpha1.ReadyCondition)
	say("PodNetwork Ready=%s (%s): %s — `kubectl wait --for=condition=Ready podnetwork/default` returns", c.Status, c.Reason, c.Message)
	return nil
}

// showMetrics prints a few lines of the operator's Prometheus endpoint,
// which serves HTTPS with a self-signed certificate and only to tokens the
// apiserver authorizes to get /metrics.
func (d *demo) showMetrics(ctx context.Context) {
	url := "https://" + d.metricsAddr + "/metrics"
	fmt.Println()
	if code, _, err := d.getMetrics(ctx, url, ""); err == nil {
		say("GET %s without a token: %d %s", url, code, http.StatusText(code))
	}
	token, err := d.scraperToken(ctx)
	if err != nil {
		say("no metrics: %v", err)
		return
	}
	code, body, err := d.getMetrics(ctx, url, token)
	if err != nil || code != http.StatusOK {
		say("no metrics: HTTP %d %v %s", code, err, body)
		return
	}
	say("a few of the operator's metrics (%s with the token of system:serviceaccount:%s:%s, bound to the metrics-reader role):",
		url, scraperNamespace, scraperName)
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "podnetwork_range_blocks") || strings.HasPrefix(line, "podnetwork_range_transitions_total") ||
			strings.HasPrefix(line, "podnetwork_cidr_not_available_total") {
			fmt.Println("          " + line)
		}
	}
}

// scraperToken creates the scraper's ServiceAccount and returns a token of
// it from the TokenRequest API, as `kubectl create token` does.
func (d *demo) scraperToken(ctx context.Context) (string, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: scraperNamespace}}
	if err := d.admin.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("creating namespace %s: %w", scraperNamespace, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: scraperNamespace, Name: scraperName}}
	if err := d.admin.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("creating ServiceAccount %s/%s: %w", scraperNamespace, scraperName, err)
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}
	if err := d.admin.SubResource("token").Create(ctx, sa, tr); err != nil {
		return "", fmt.Errorf("requesting a token of %s/%s: %w", scraperNamespace, scraperName, err)
	}
	return tr.Status.Token, nil
}

// getMetrics GETs url with the bearer token (none when empty), trusting the
// operator's self-signed certificate.
func (d *demo) getMetrics(ctx context.Context, url, token string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the operator's certificate is self-signed
	}}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// cidrNotAvailable returns the CIDRNotAvailable event notes.
func (d *demo) cidrNotAvailable(ctx context.Context) []string {
	var list eventsv1.EventList
	if err := d.admin.List(ctx, &list); err != nil {
		return nil
	}
	var out []string
	for _, ev := range list.Items {
		if ev.Reason == "CIDRNotAvailable" {
			out = append(out, fmt.Sprintf("%s %s/%s: %s", ev.Type, ev.Regarding.Kind, ev.Regarding.Name, ev.Note))
		}
	}
	return out
}
