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

package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Version is what `kubectl podnetwork version` prints; kind Version of
// cli.podnetwork.io/v1alpha1 in the machine output. It describes the plugin
// binary, from the build information the Go toolchain stamps into it.
type Version struct {
	metav1.TypeMeta `json:",inline"`
	// Version is the module version the binary was built from ("v0.3.0"
	// for `go install podnetwork.io/operator/cmd/kubectl-podnetwork@v0.3.0`,
	// "(devel)" for a build in a clone).
	Version string `json:"version"`
	// GitCommit is the commit of a build in a clone (vcs.revision), when
	// the toolchain stamped it; GitTreeState is "dirty" when the clone had
	// changes then, "clean" otherwise; CommitTime is the commit's time.
	GitCommit    string `json:"gitCommit,omitempty"`
	GitTreeState string `json:"gitTreeState,omitempty"`
	CommitTime   string `json:"commitTime,omitempty"`
	// GoVersion is the toolchain that built it; Platform is GOOS/GOARCH.
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// VersionFrom reads the version from build information
// (debug.ReadBuildInfo); info may be nil when the binary has none.
func VersionFrom(info *debug.BuildInfo) Version {
	v := Version{TypeMeta: typeMeta(KindVersion), Version: "unknown"}
	if info == nil {
		return v
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	v.GoVersion = info.GoVersion
	var goos, goarch string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.GitCommit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.GitTreeState = map[string]string{"true": "dirty", "false": "clean"}[s.Value]
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	if goos == "" || goarch == "" {
		goos, goarch = runtime.GOOS, runtime.GOARCH
	}
	v.Platform = goos + "/" + goarch
	return v
}

// WriteVersionText prints the version on one line:
// "kubectl-podnetwork (devel), commit 0123abc (dirty), go1.26.0 linux/amd64".
func WriteVersionText(w io.Writer, v *Version) error {
	parts := []string{"kubectl-podnetwork " + v.Version}
	if v.GitCommit != "" {
		c := "commit " + v.GitCommit
		if v.GitTreeState == "dirty" {
			c += " (dirty)"
		}
		parts = append(parts, c)
	}
	if v.GoVersion != "" || v.Platform != "" {
		parts = append(parts, strings.TrimSpace(v.GoVersion+" "+v.Platform))
	}
	_, err := fmt.Fprintln(w, strings.Join(parts, ", "))
	return err
}
