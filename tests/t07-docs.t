#!/bin/bash
# The documentation holds together: README.md is the front door and stays
# short, docs/guide/ is the manual. Every relative link and image in
# README.md and docs/ names a file that is there, every #anchor a heading
# of its file as GitHub names it, every guide file is reachable from the
# README through the guide's index, and pressmark help points to the guide.
# Reads files only: no root, no machine state, well under a second.
. "$(dirname "$0")/lib.sh"

# links DIR FILE...: every relative link (inline, image or reference
# definition) of the markdown FILEs, relative to DIR, outside code blocks
# and code spans, one line each: STATUS FROM TARGET LINK, tab-separated.
# STATUS: ok, missing (no such file or directory), no-anchor (an #anchor
# that is not a heading of the markdown file it points into); a FILE whose
# last code block is never closed (which hides what follows) is a line
# "unclosed FILE", its links unread. TARGET is
# the path the link resolves to, relative to DIR. Anchors follow GitHub's
# slugs: the heading's text lowercased, punctuation other than '-' and '_'
# removed, spaces made '-', a repeated slug given -1, -2, ...
links() {
    perl -CSDA -e '
        use strict; use warnings;
        my ($dir, @files) = @ARGV;
        chdir $dir or die "$dir: $!";
        my (%slugs, %unclosed);    # file -> { slug -> 1 }; files with a code block left open
        sub lines_outside_code {    # the lines of FILE outside fenced blocks, code spans removed
            my ($f) = @_;
            open my $fh, "<:encoding(UTF-8)", $f or return ();
            my ($fence, @out) = ("");
            while (my $l = <$fh>) {
                chomp $l;
                if ($fence eq "" && $l =~ /^ {0,3}(`{3,}|~{3,})/) { $fence = $1; push @out, ""; next }
                if ($fence ne "") {
                    $fence = "" if $l =~ /^ {0,3}\Q$fence\E\s*$/ || ($l =~ /^ {0,3}(`{3,}|~{3,})\s*$/ && index($1, $fence) == 0);
                    push @out, ""; next;
                }
                push @out, $l;
            }
            $unclosed{$f} = 1 if $fence ne "";
            return @out;
        }
        sub slugs_of {
            my ($f) = @_;
            return $slugs{$f} if $slugs{$f};
            my (%s, %seen);
            for my $l (lines_outside_code($f)) {
                next unless $l =~ /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
                my $t = $1;
                $t =~ s/!?\[([^\]]*)\]\([^)]*\)/$1/g;    # a link: its text
                $t =~ s/<[^>]+>//g;                        # HTML tags
                $t = lc $t;
                $t =~ s/[^\p{L}\p{M}\p{N}\p{Pc} -]//g;     # punctuation but - and _
                $t =~ s/ /-/g;
                my $slug = $seen{$t}++ ? "$t-" . ($seen{$t} - 1) : $t;
                $s{$slug} = 1;
            }
            return $slugs{$f} = \%s;
        }
        sub norm {    # a/b/../c -> a/c; "" when it leaves DIR
            my @p;
            for (split m{/}, $_[0]) {
                next if $_ eq "" || $_ eq ".";
                if ($_ eq "..") { return "" unless @p; pop @p } else { push @p, $_ }
            }
            return join "/", @p;
        }
        for my $f (@files) {
            (my $base = $f) =~ s{[^/]*$}{};
            my @lines = lines_outside_code($f);
            if ($unclosed{$f}) { print "unclosed\t$f\t\t\n"; next }
            for my $l (@lines) {
                $l =~ s/(`+).*?\1//g;    # code spans
                my @t;
                push @t, $1 while $l =~ /!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g;
                push @t, $1 if $l =~ /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/;
                for my $link (@t) {
                    next if $link =~ m{^([a-zA-Z][a-zA-Z0-9+.-]*:|//)};    # a URL
                    my ($path, $anchor) = $link =~ /^([^#]*)(?:#(.*))?$/;
                    $path =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge;
                    my $target = $path eq "" ? $f : norm($base . $path);
                    my $status = "ok";
                    if ($target eq "" || !-e $target) { $status = "missing"; $target = $base . $path }
                    elsif (defined $anchor && $anchor ne "" && $target =~ /\.md$/ && !slugs_of($target)->{lc $anchor}) { $status = "no-anchor" }
                    print join("\t", $status, $f, $target, $link), "\n";
                }
            }
        }' "$@"
}

cd "$ROOT" || exit 1
DOCS=$(find docs -name '*.md' | LC_ALL=C sort)
links . README.md $DOCS > "$TMP/links"
is "$?" 0 "the links of README.md and docs/ read"
ge "$(grep -c . "$TMP/links")" 30 "  relative links found in them ($(grep -c . "$TMP/links"))"
is "$(awk -F'\t' '$1 == "unclosed" { print $2 }' "$TMP/links")" "" "every code block in them is closed"
is "$(awk -F'\t' '$1 == "missing" { print $2 ": " $4 }' "$TMP/links")" "" "every relative link and image names a file that is there"
is "$(awk -F'\t' '$1 == "no-anchor" { print $2 ": " $4 }' "$TMP/links")" "" "every #anchor names a heading of its file, by GitHub's slug"
is "$(awk -F'\t' '$2 ~ /^docs\// && $3 !~ /^docs\// { print $2 ": " $4 }' "$TMP/links")" "" \
   "links from docs/ stay in docs/ (installed, share/doc/pressmark keeps its layout)"

n=$(wc -l < README.md)
ok "README.md is a front door: $n lines, at most 260" test "$n" -le 260
is "$(awk -F'\t' '$1 == "ok" && $2 == "README.md" && $3 == "docs/guide/README.md"' "$TMP/links" | wc -l | tr -d ' ')" 1 \
   "README.md links the guide's index"
is "$(for f in docs/guide/*.md; do [ "$f" = docs/guide/README.md ] ||
        awk -F'\t' -v f="$f" '$1 == "ok" && $2 == "docs/guide/README.md" && $3 == f { found = 1 } END { exit !found }' "$TMP/links" ||
        echo "$f"; done)" "" "the guide's index links every guide file"
ok "  and docs/security.md, the security model" \
   awk -F'\t' '$1 == "ok" && $2 == "docs/guide/README.md" && $3 == "docs/security.md" { found = 1 } END { exit !found }' "$TMP/links"
# Reachable: follow the links from README.md, file to file.
reached=$(awk -F'\t' '$1 == "ok" && $3 ~ /\.md$/ { edge[$2] = edge[$2] " " $3 }
    END { todo[1] = "README.md"; seen["README.md"] = 1; n = 1
          for (i = 1; i <= n; i++) { k = split(edge[todo[i]], to, " ")
              for (j = 1; j <= k; j++) if (!(to[j] in seen)) { seen[to[j]] = 1; todo[++n] = to[j] } }
          for (f in seen) print f }' "$TMP/links" | LC_ALL=C sort)
is "$(LC_ALL=C comm -23 <(printf '%s\n' $DOCS) <(printf '%s\n' "$reached"))" "" "every file of docs/ is reachable from README.md"

# Words, as t11 holds the README and the help to them: the reports
# pressmark grew from are named by what they are, never "seeds".
SEEDWORDS="[Ss]eeds? 00[0-9]\\b|[Ss]eeds'|[Ss]eed's|[Ss]eed tables?|[Tt]he seeds\\b"
is "$(grep -nE "$SEEDWORDS" $DOCS)" "" "no docs/ file calls the reference reports seeds"
# pressmark --help prints the overview 'pressmark help' prints, before any
# command could look for a killed run's leftovers: it reads nothing of the
# machine's state.
like "$("$PM" --help)" "user guide: docs/guide/ in a clone; installed, PREFIX/share/doc/pressmark/guide/" \
   "pressmark's overview (help, --help) points to the guide"
like "$("$PM" --help)" "man pages: pressmark\(1\), pressmark-COMMAND\(1\), pressmark-suite\(5\), pressmark-metrics\(7\)" "  and to the man pages"

# The check can fail: in a copy, a planted broken link, image and anchor
# and a code block left open are each reported, and headings that test the
# slug rules are found.
P="$TMP/plant"
mkdir -p "$P"
cp -r README.md docs "$P/"
cat >> "$P/docs/guide/workloads.md" <<'EOF'

## A `code` Heading: with (punctuation), dots... and_under-scores!
## run chat: VolanoMark, faithful to the wire (the 2002 VolanoMark reports)

[planted](nope.md) ![planted image](../img/none.png) [planted anchor](reports.md#no-such-heading)
[slug](#a-code-heading-with-punctuation-dots-and_under-scores) [repeat](#run-chat-volanomark-faithful-to-the-wire-the-2002-volanomark-reports-1)
`[in a code span](nope-either.md)`

```
[in a code block](nope-neither.md)
```
EOF
printf '\n```\nan example never closed\n' >> "$P/docs/guide/references.md"
links "$P" README.md $DOCS > "$TMP/plant-links"
# (what the plant adds to the tree's own findings, so that a broken link
# in the tree fails the tests above, not this one)
is "$(LC_ALL=C comm -13 <(LC_ALL=C sort "$TMP/links") <(LC_ALL=C sort "$TMP/plant-links") |
      awk -F'\t' '$1 != "ok" { l = $1 " " $2 " " $4; sub(/ +$/, "", l); print l }')" \
   "missing docs/guide/workloads.md ../img/none.png
missing docs/guide/workloads.md nope.md
no-anchor docs/guide/workloads.md reports.md#no-such-heading
unclosed docs/guide/references.md" \
   "a planted broken link, image and anchor and an open code block are each reported, and nothing else"
is "$(awk -F'\t' '$2 == "docs/guide/workloads.md" && $4 ~ /^#(a-code-heading|run-chat-.*-1$)/ { print $1 }' "$TMP/plant-links" |
      tr '\n' ' ')" "ok ok " \
   "  headings slugged as GitHub does: case, punctuation, a repeated heading's -1"
done_testing
