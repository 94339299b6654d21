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
	"errors"
	"flag"
	"time"
)

// Options configures the audit.
type Options struct {
	// Enabled runs the audit. It lists every pod and NetworkPolicy of the
	// cluster, which needs RBAC the operator otherwise does without (the
	// chart grants it with audit.enabled).
	Enabled bool
	// Interval is the time from the end of one audit to the start of the
	// next (with up to 10% jitter).
	Interval time.Duration
	// PodIPs checks the pods' IPs against their node's podCIDRs and the
	// ranges in use; turn it off where the CNI does not allocate pod IPs
	// from node podCIDRs.
	PodIPs bool

	// PageSize is the limit of every LIST page, and PagesPerSecond how
	// many pages the audit requests per second at most: 500 and 5 read
	// 100,000 pods in 40 seconds, at 5 requests a second. Not flags.
	PageSize       int64
	PagesPerSecond float64
	// MaxEvents bounds the new findings one audit announces with an event;
	// the others are announced by the next audits. Not a flag.
	MaxEvents int
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{Interval: 5 * time.Minute, PodIPs: true, PageSize: 500, PagesPerSecond: 5, MaxEvents: 20}
}

// BindFlags registers the audit's flags.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Enabled, "enable-audit", o.Enabled,
		"Audit the cluster against the pod network every --audit-interval: pod IPs outside their node's podCIDRs or outside every range in use, NetworkPolicies that miss a range added since they were written, adapter ConfigMaps that drifted. Lists every pod and NetworkPolicy, page by page: needs the chart's audit RBAC (audit.enabled).")
	fs.DurationVar(&o.Interval, "audit-interval", o.Interval,
		"Time between two audits (--enable-audit).")
	fs.BoolVar(&o.PodIPs, "audit-pod-ips", o.PodIPs,
		"Check pod IPs against their node's podCIDRs and the ranges in use (--enable-audit); turn off where the CNI does not allocate pod IPs from node podCIDRs.")
}

func (o *Options) validate() error {
	var errs []error
	if o.Interval <= 0 {
		errs = append(errs, errors.New("--audit-interval must be positive"))
	}
	if o.PageSize <= 0 || o.PagesPerSecond <= 0 || o.MaxEvents < 0 {
		errs = append(errs, errors.New("the audit's page size and pages per second must be positive, and its events per audit not negative"))
	}
	return errors.Join(errs...)
}
