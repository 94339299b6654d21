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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

func runChecksums(args []string) error {
	fs := newFlagSet("checksums")
	out := fs.String("o", "SHA256SUMS", "file to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return writeChecksums(*out, fs.Args())
}

// writeChecksums writes "<sha256>  <base name>" lines, the format
// `sha256sum -c` checks, sorted by name. It is here rather than in the
// Makefile so a release needs only Go (macOS has no sha256sum).
func writeChecksums(out string, files []string) error {
	if len(files) == 0 {
		return fmt.Errorf("checksums: no files given")
	}
	files = append([]string(nil), files...)
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	return writeFileAtomic(out, func(w io.Writer) error {
		for _, f := range files {
			sum, err := sha256File(f)
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(w, "%s  %s\n", sum, filepath.Base(f)); err != nil {
				return err
			}
		}
		return nil
	})
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("checksum of %s: %w", path, err)
	}
	defer f.Close() //nolint:errcheck // opened read-only: a failed close loses nothing
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("checksum of %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
