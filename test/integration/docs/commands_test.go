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

package docs_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// docCommand is one `kubectl podnetwork ...` command of a ```sh, ```bash,
// ```shell or ```console block of the docs.
type docCommand struct {
	// File and Line say where it is documented.
	File string
	Line int
	// Lang is the block's language.
	Lang string
	// Text is the command as documented: the prompt, the comment and what
	// follows a pipe left out, continuation lines joined.
	Text string
	// Comment is its trailing comment; a marker "exit N" in it is the exit
	// code the docs promise (0 without one).
	Comment string
	// Rest is what followed the command on its line (a pipe into jq, ...):
	// it is not run.
	Rest string
	// Output is the output a ```console block shows after the command.
	Output []string
}

func (c docCommand) String() string { return fmt.Sprintf("%s:%d: %s", c.File, c.Line, c.Text) }

// exitMarker is the marker of the exit code a command is documented to
// end with, in its trailing comment: "# exit 2: an unknown flag".
var exitMarker = regexp.MustCompile(`(?:^|[^\w-])exit (\d+)\b`)

// WantExit is the exit code the docs promise.
func (c docCommand) WantExit() (int, bool) {
	m := exitMarker.FindStringSubmatch(c.Comment)
	if m == nil {
		return 0, false
	}
	n, _ := strconv.Atoi(m[1])
	return n, true
}

var fence = regexp.MustCompile("^\\s*```\\s*([A-Za-z]*)")

// shellLangs are the languages of the blocks whose commands are run.
var shellLangs = []string{"sh", "bash", "shell", "console"}

// docFiles returns README.md and every .md file under docs/, relative to
// root.
func docFiles(root string) ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, rel)
		}
		return nil
	})
	slices.Sort(files[1:])
	return files, err
}

// extractCommands returns every `kubectl podnetwork` (or
// `kubectl-podnetwork`) command of the shell and console blocks of the
// files, in order.
func extractCommands(root string, files []string) ([]docCommand, error) {
	var out []docCommand
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		cmds, err := commandsOf(f, string(b))
		if err != nil {
			return nil, err
		}
		out = append(out, cmds...)
	}
	return out, nil
}

// inlineSpan is a code span of the prose that runs the plugin; it may
// break across lines.
var inlineSpan = regexp.MustCompile("`((?:kubectl podnetwork|kubectl-podnetwork)(?:[ \t\n][^`]*)?)`")

// inlineCommands returns the plugin commands of the prose's code spans
// (Lang "inline"), the text of the blocks left out: their flags are checked
// (they are run with --help), not their outcome.
func inlineCommands(file, text string) []docCommand {
	lines := strings.Split(text, "\n")
	inBlock := false
	for i, l := range lines {
		if fence.MatchString(l) {
			inBlock = !inBlock
			lines[i] = ""
			continue
		}
		if inBlock {
			lines[i] = ""
		}
	}
	prose := strings.Join(lines, "\n")
	var out []docCommand
	for _, m := range inlineSpan.FindAllStringSubmatchIndex(prose, -1) {
		body, _, _ := cutShell(strings.Join(strings.Fields(prose[m[2]:m[3]]), " "))
		out = append(out, docCommand{File: file, Line: strings.Count(prose[:m[0]], "\n") + 1, Lang: "inline", Text: strings.TrimSpace(body)})
	}
	return out
}

// commandsOf extracts the commands of one Markdown document: those of its
// shell and console blocks, then those of its prose.
func commandsOf(file, text string) ([]docCommand, error) {
	out, err := blockCommands(file, text)
	return append(out, inlineCommands(file, text)...), err
}

// blockCommands extracts the commands of the shell and console blocks of
// one Markdown document.
func blockCommands(file, text string) ([]docCommand, error) {
	var out []docCommand
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	lang, inBlock := "", false
	var current *docCommand // the console command whose output follows
	pending, pendingLine := "", 0
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if m := fence.FindStringSubmatch(line); m != nil {
			if inBlock {
				inBlock, current = false, nil
				if pending != "" {
					return nil, fmt.Errorf("%s:%d: a continuation line ends the block", file, pendingLine)
				}
				continue
			}
			inBlock, lang = true, m[1]
			continue
		}
		if !inBlock || !slices.Contains(shellLangs, lang) {
			continue
		}
		trimmed := strings.TrimSpace(line)
		if lang == "console" && !strings.HasPrefix(trimmed, "$ ") && pending == "" {
			if current != nil && trimmed != "" {
				current.Output = append(current.Output, trimmed)
			}
			continue
		}
		if pending == "" {
			pendingLine = n
		}
		// A continuation line (ending in a backslash outside any comment)
		// joins the next one.
		if body, rest, comment := cutShell(trimmed); comment == "" && strings.HasSuffix(strings.TrimSpace(body+rest), `\`) {
			pending += strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body+rest), `\`)) + " "
			continue
		}
		full := pending + trimmed
		pending = ""
		current = nil
		full = strings.TrimPrefix(full, "$ ")
		body, rest, comment := cutShell(full)
		body = strings.TrimSpace(body)
		if !isPluginCommand(body) {
			if strings.Contains(body+rest, "kubectl podnetwork") || strings.Contains(body+rest, "kubectl-podnetwork ") {
				if !strings.HasPrefix(body, "go install") && !strings.HasPrefix(body, "go build") {
					return nil, fmt.Errorf("%s:%d: %q runs kubectl podnetwork after another command: write it on a line of its own, or teach test/integration/docs how to run it", file, pendingLine, full)
				}
			}
			continue
		}
		c := docCommand{File: file, Line: pendingLine, Lang: lang, Text: body, Comment: comment, Rest: strings.TrimSpace(rest)}
		out = append(out, c)
		if lang == "console" {
			current = &out[len(out)-1]
		}
	}
	return out, sc.Err()
}

// envPrefix matches the variable assignments before a command.
var envPrefix = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*`)

// isPluginCommand reports whether a command runs the plugin, after
// variable assignments if any.
func isPluginCommand(s string) bool {
	s = s[len(envPrefix.FindString(s)):]
	return strings.HasPrefix(s, "kubectl podnetwork") || strings.HasPrefix(s, "kubectl-podnetwork")
}

// cutShell cuts a shell line into the first simple command, what follows
// it (from the first unquoted |, ; or &) and its comment (from an unquoted
// # that starts a word).
func cutShell(s string) (body, rest, comment string) {
	var quote rune
	escaped := false
	end := len(s)
	for i, r := range s {
		switch {
		case escaped:
			escaped = false
		case r == '\\' && quote != '\'':
			escaped = true
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			comment = strings.TrimSpace(s[i+1:])
			if end == len(s) {
				end = i
			}
			return s[:end], s[min(end, i):i], comment
		case (r == '|' || r == ';' || r == '&') && end == len(s):
			end = i
		}
	}
	return s[:end], s[end:], ""
}

// shellWords splits a simple command into words as the shell would (quotes
// and backslashes; no expansion).
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			w.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}
