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
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A release version: SemVer without build metadata, because it is also the
// image tag and a tag cannot hold "+".
var (
	releaseVersion = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)
	imageDigest    = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)
)

// chartStamp is what a release writes into the chart.
type chartStamp struct {
	Version    string // Chart.yaml version and appVersion
	Repository string // values image.repository
	Tag        string // values image.tag
	Digest     string // values image.digest; empty: pull by tag
}

func runChart(args []string) error {
	fs := newFlagSet("chart")
	src := fs.String("chart", "", "chart to copy (required)")
	dst := fs.String("out", "", "directory to write the stamped copy into, replaced (required)")
	var s chartStamp
	fs.StringVar(&s.Version, "version", "", "chart version and appVersion, x.y.z (required)")
	fs.StringVar(&s.Repository, "repository", "podnetwork-operator", "image.repository")
	fs.StringVar(&s.Tag, "tag", "", "image.tag (default: the version)")
	fs.StringVar(&s.Digest, "digest", "", "image.digest (sha256:...), to pull by digest")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *src == "" || *dst == "" || fs.NArg() != 0 {
		fs.Usage()
		return fmt.Errorf("chart: -chart and -out are required")
	}
	if s.Tag == "" {
		s.Tag = s.Version
	}
	if err := stampChart(*src, *dst, s); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "image-tool: wrote chart %s with image %s\n", *dst, s.image())
	return nil
}

func (s chartStamp) image() string {
	if s.Digest != "" {
		return s.Repository + "@" + s.Digest
	}
	return s.Repository + ":" + s.Tag
}

func (s chartStamp) validate() error {
	if !releaseVersion.MatchString(s.Version) {
		return fmt.Errorf("version %q: want x.y.z or x.y.z-pre (SemVer without +build, as it is also the image tag)", s.Version)
	}
	if s.Repository == "" {
		return fmt.Errorf("an image repository is required")
	}
	if s.Digest != "" && !imageDigest.MatchString(s.Digest) {
		return fmt.Errorf("digest %q: want sha256:<64 hex digits>", s.Digest)
	}
	return nil
}

// stampChart copies the chart to dst and stamps the copy: the committed
// chart is never edited, so a release leaves the working tree clean and
// `make verify-generated` and the tests see the chart as committed.
func stampChart(src, dst string, s chartStamp) error {
	if err := s.validate(); err != nil {
		return err
	}
	if err := os.RemoveAll(dst); err != nil {
		return fmt.Errorf("removing the old copy %s: %w", dst, err)
	}
	if err := copyDir(src, dst); err != nil {
		return err
	}
	quote := strconv.Quote
	if err := setYAML(filepath.Join(dst, "Chart.yaml"), map[string]string{
		"version":    quote(s.Version),
		"appVersion": quote(s.Version),
	}); err != nil {
		return err
	}
	return setYAML(filepath.Join(dst, "values.yaml"), map[string]string{
		"image.repository": quote(s.Repository),
		"image.tag":        quote(s.Tag),
		"image.digest":     quote(s.Digest),
	})
}

func copyDir(src, dst string) error {
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		return fmt.Errorf("copying the chart %s to %s: %w", src, dst, err)
	}
	return nil
}

// setYAML replaces the scalar values at dotted key paths in a YAML file,
// editing only those lines, so every comment and the layout of the rest of
// the file stay as committed (a YAML round trip would reformat it). Every
// key must already exist as a single-line scalar.
func setYAML(file string, values map[string]string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("parsing %s: %w", file, err)
	}
	lines := strings.Split(string(data), "\n")
	for key, value := range values {
		n := lookup(&doc, strings.Split(key, "."))
		if n == nil || n.Kind != yaml.ScalarNode || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return fmt.Errorf("%s: %s is not a single-line scalar", file, key)
		}
		line := lines[n.Line-1]
		rest := value
		if n.LineComment != "" {
			rest += " " + n.LineComment
		}
		lines[n.Line-1] = line[:n.Column-1] + rest
	}
	out := []byte(strings.Join(lines, "\n"))
	// Read the result back: a value that did not land where expected fails
	// here rather than in helm.
	var check map[string]any
	if err := yaml.Unmarshal(out, &check); err != nil {
		return fmt.Errorf("%s after stamping: %w", file, err)
	}
	for key, value := range values {
		want, _ := strconv.Unquote(value)
		if got := lookupValue(check, strings.Split(key, ".")); got != want {
			return fmt.Errorf("%s after stamping: %s is %q, want %q", file, key, got, want)
		}
	}
	if bytes.Equal(out, data) {
		return nil
	}
	return os.WriteFile(file, out, 0o644)
}

// lookup returns the value node at a key path in a YAML document.
func lookup(n *yaml.Node, path []string) *yaml.Node {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if len(path) == 0 {
		return n
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == path[0] {
			return lookup(n.Content[i+1], path[1:])
		}
	}
	return nil
}

func lookupValue(m map[string]any, path []string) string {
	var v any = m
	for _, k := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = mm[k]
	}
	s, _ := v.(string)
	return s
}
