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
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/story"
)

// stepTimeout bounds how long the demo waits for one check.
const stepTimeout = 2 * time.Minute

// story tells the admin's story (test/framework/story), act by act, then shows a few
// metrics and checks the invariants on everything recorded.
func (d *demo) story(ctx context.Context) error {
	var err error
	if d.history, err = framework.Record(ctx, d.env.API, &v1alpha1.PodNetworkList{}); err != nil {
		return err
	}
	acts := story.Acts(d.env)
	for i, act := range acts {
		fmt.Println()
		say("ACT %d: %s", i+1, act.Title)
		for _, step := range act.Steps {
			if err := d.step(step); err != nil {
				return err
			}
		}
	}
	if err := d.handsFree(ctx, len(acts)+1); err != nil {
		return err
	}
	d.showMetrics(ctx)
	if err := d.history.CheckCluster(ctx, d.env.API); err != nil {
		return fmt.Errorf("invariant check failed: %w", err)
	}
	say("invariants hold: no two nodes have overlapping podCIDRs and every podCIDR lies in a range that was Active")
	say("done: a range was added and filled, a second one added, the first retired once its nodes were replaced, the pool grew the network by itself before any node waited, and drain assist retired a range without anyone touching a node")
	return nil
}

// step acts, then tells every check once it holds, with the range table.
func (d *demo) step(step story.Step) error {
	say("%s", step.Title)
	if step.Do != nil {
		if err := step.Do(d.env); err != nil {
			return err
		}
	}
	for _, c := range step.Checks {
		if err := d.check(c); err != nil {
			return err
		}
		if c.Says == "" {
			continue
		}
		say("%s", c.Says)
		if c.Detail != nil {
			for _, line := range c.Detail(d.env) {
				fmt.Println("          " + line)
			}
		}
		d.table()
	}
	return nil
}

// check waits for an Eventually check, tests a Now check once and a
// Throughout check for its whole duration.
func (d *demo) check(c story.Check) error {
	holds := func(context.Context) (bool, error) { return c.Holds(d.env) == nil, nil }
	switch c.Mode {
	case story.Now:
		if err := c.Holds(d.env); err != nil {
			return fmt.Errorf("%s: %w", c.What, err)
		}
		return nil
	case story.Throughout:
		for end := time.Now().Add(c.For); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			if err := c.Holds(d.env); err != nil {
				return fmt.Errorf("%s: %w", c.What, err)
			}
		}
		return nil
	default:
		if err := waitFor(c.What, stepTimeout, holds); err != nil {
			return fmt.Errorf("%w: %w", err, c.Holds(d.env))
		}
		return nil
	}
}

// table prints the range table once its block usage shows the nodes as
// they are: NodeIPAM writes usage at most once per status interval, and a
// table printed right after "all nodes have a podCIDR" showed 0 used.
func (d *demo) table() {
	var pn *v1alpha1.PodNetwork
	settled := func(context.Context) (bool, error) {
		var err error
		if pn, err = d.env.API.PodNetwork(); err != nil {
			return false, nil //nolint:nilerr // retried until the timeout
		}
		nodes := &corev1.NodeList{}
		if err := d.env.API.List(d.env.API.Ctx, nodes); err != nil {
			return false, nil //nolint:nilerr // retried until the timeout
		}
		return usageMatches(pn, nodes.Items), nil
	}
	if err := waitFor("block usage to catch up with the nodes", usageLagTimeout, settled); err != nil {
		say("  (block usage below may lag: %v)", err)
	}
	if pn != nil {
		printRanges(pn)
	}
}

// usageLagTimeout bounds the wait for usage: a few status intervals.
const usageLagTimeout = 10 * time.Second

// usageMatches reports whether every range's usage counts the blocks nodes
// hold in it (a Released range has no usage).
func usageMatches(pn *v1alpha1.PodNetwork, nodes []corev1.Node) bool {
	for _, rs := range pn.Status.Ranges {
		if rs.Phase == v1alpha1.RangePhaseReleased {
			continue
		}
		r, err := netip.ParsePrefix(rs.CIDR)
		if err != nil {
			continue
		}
		held := int64(0)
		for _, n := range nodes {
			for _, c := range n.Spec.PodCIDRs {
				if p, err := netip.ParsePrefix(c); err == nil && r.Overlaps(p) {
					held++
				}
			}
		}
		if ptr.Deref(rs.Usage.Allocated, 0) != held {
			return false
		}
	}
	return true
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
			strings.HasPrefix(line, "podnetwork_cidr_not_available_total") || strings.HasPrefix(line, "podnetwork_autoscaler_pool_exhaustion_seconds") ||
			strings.HasPrefix(line, "podnetwork_autoscaler_steps_total") {
			fmt.Println("          " + line)
		}
	}
}

// scraperToken creates the scraper's ServiceAccount and returns a token of
// it from the TokenRequest API, as `kubectl create token` does.
func (d *demo) scraperToken(ctx context.Context) (string, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: scraperNamespace}}
	if err := d.env.API.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("creating namespace %s: %w", scraperNamespace, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: scraperNamespace, Name: scraperName}}
	if err := d.env.API.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("creating ServiceAccount %s/%s: %w", scraperNamespace, scraperName, err)
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}
	if err := d.env.API.SubResource("token").Create(ctx, sa, tr); err != nil {
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
