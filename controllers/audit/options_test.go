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
	"flag"
	"strings"
	"testing"
	"time"
)

func TestFlags(t *testing.T) {
	opts := DefaultOptions()
	fs := flag.NewFlagSet("podnetwork-operator", flag.ContinueOnError)
	opts.BindFlags(fs)
	if opts.Enabled || opts.Interval != 5*time.Minute || !opts.PodIPs {
		t.Errorf("defaults %+v, want off, every 5m, pod IPs checked", opts)
	}
	if err := fs.Parse([]string{"--enable-audit", "--audit-interval=1m", "--audit-pod-ips=false"}); err != nil {
		t.Fatal(err)
	}
	if !opts.Enabled || opts.Interval != time.Minute || opts.PodIPs {
		t.Errorf("parsed %+v", opts)
	}
	if err := opts.validate(); err != nil {
		t.Errorf("valid options refused: %v", err)
	}
	opts.Interval, opts.PagesPerSecond = 0, 0
	err := opts.validate()
	if err == nil || !strings.Contains(err.Error(), "--audit-interval") || !strings.Contains(err.Error(), "pages per second") {
		t.Errorf("validate() = %v, want both problems", err)
	}
}
