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

// Command image builds, pushes and unpacks the operator's container image
// without a Docker engine, with github.com/google/go-containerregistry (the
// library behind crane and ko). It is its own Go module so the operator's
// go.mod never depends on go-containerregistry; the Makefile builds it into
// bin/image-tool.
//
//	build      cross-compile main.go and write a reproducible multi-arch OCI
//	           image (OCI layout, OCI archive tarball, digest) under bin/image
//	push       push a built image index to a registry
//	extract    write one file (by default the entrypoint, /manager) out of
//	           the image's layers, for one platform
//	chart      stamp a copy of the chart with a version and image reference
//	checksums  write a SHA256SUMS file
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

type command struct {
	name, summary string
	run           func(args []string) error
}

var commands = []command{
	{"build", "build the image from the sources", runBuild},
	{"push", "push a built image to a registry", runPush},
	{"extract", "write a file out of the image's layers", runExtract},
	{"chart", "stamp a copy of the chart with a version and image", runChart},
	{"checksums", "write SHA256SUMS for files", runChecksums},
}

func main() {
	if err := dispatch(os.Args[1:]); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "image-tool:", err)
		}
		os.Exit(2)
	}
}

func dispatch(args []string) error {
	if len(args) > 0 {
		for _, c := range commands {
			if c.name == args[0] {
				return c.run(args[1:])
			}
		}
	}
	fmt.Fprintln(os.Stderr, "Usage: image-tool COMMAND [flags]  (COMMAND -h for its flags)\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", c.name, c.summary)
	}
	if len(args) == 0 {
		return flag.ErrHelp
	}
	return fmt.Errorf("unknown command %q", args[0])
}

// newFlagSet returns a flag set that reports errors instead of exiting, so
// main decides the exit code.
func newFlagSet(name string) *flag.FlagSet {
	return flag.NewFlagSet("image-tool "+name, flag.ContinueOnError)
}
