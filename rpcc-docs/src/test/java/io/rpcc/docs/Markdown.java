package io.rpcc.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads what DocSnippetsTest checks out of a Markdown file: ```java blocks, headings and links. */
final class Markdown {
    private Markdown() {
    }

    private static final Pattern FENCE = Pattern.compile("^(\\s*)(```+|~~~+)\\s*([\\w+-]*).*$");
    private static final Pattern DIRECTIVE = Pattern.compile("^\\s*<!--\\s*snippet:(.*)-->\\s*$");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern LINK = Pattern.compile("\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");
    private static final Pattern TYPE_DECLARATION = Pattern.compile(
            "^\\s*(?:@[\\w.]+(?:\\([^)]*\\))?\\s*(?://[^\\n]*\\n\\s*)?)*"
                    + "(?:(?:public|protected|private|final|abstract|sealed|non-sealed|static|strictfp)\\s+)*"
                    + "(?:class|interface|record|enum|@interface)\\s+\\w+");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "(?m)^(?:@[\\w.]+(?:\\([^)]*\\))?\\s+)*public\\s+(?:(?:final|abstract|sealed|non-sealed|static|strictfp)\\s+)*"
                    + "(?:class|interface|record|enum|@interface)\\s+(\\w+)");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");

    /** Imports of every snippet that does not declare its own (see docs/contributing.md). */
    static final List<String> STANDARD_IMPORTS = List.of(
            "java.util.*", "java.util.concurrent.*", "java.util.function.*", "java.time.*", "java.nio.file.*",
            "java.net.*", "io.rpcc.core.*", "io.rpcc.client.*", "io.rpcc.server.*",
            "static io.rpcc.core.StaticRoute.hop", "io.rpcc.docs.fixture.*");

    enum Wrap { UNIT, STATEMENTS, MEMBERS }

    /** A ```java block: its first line's number in the file (the fence), its text and its directive. */
    record Snippet(Path file, int line, String body, Wrap wrap, boolean asIs, List<String> imports, String group) {

        String packageName() {
            Matcher m = PACKAGE.matcher(body);
            if (asIs && m.find()) {
                return m.group(1);
            }
            String slug = file.getFileName().toString().replaceAll("\\.md$", "").replaceAll("[^A-Za-z0-9]", "_").toLowerCase();
            return "snippets." + slug + (group != null ? "." + group.replaceAll("[^A-Za-z0-9]", "_") : ".l" + line);
        }

        String simpleName() {
            if (wrap == Wrap.UNIT) {
                Matcher m = PUBLIC_TYPE.matcher(body);
                if (m.find()) {
                    return m.group(1);
                }
            }
            return "Snippet" + line;
        }

        String className() {
            return packageName() + "." + simpleName();
        }

        /** The lines put before the block's own text. */
        private List<String> prefix() {
            List<String> lines = new ArrayList<>();
            if (asIs && PACKAGE.matcher(body).find()) {
                return lines;
            }
            lines.add("package " + packageName() + ";");
            if (!asIs) {
                for (String i : STANDARD_IMPORTS) {
                    lines.add("import " + i + ";");
                }
            }
            for (String i : imports) {
                lines.add("import " + (i.startsWith("static:") ? "static " + i.substring(7) : i) + ";");
            }
            switch (wrap) {
                case STATEMENTS -> {
                    lines.add("class " + simpleName() + " extends SnippetBase {");
                    lines.add("void snippet() throws Exception {");
                }
                case MEMBERS -> lines.add("class " + simpleName() + " extends SnippetBase {");
                case UNIT -> { }
            }
            return lines;
        }

        String source() {
            StringBuilder b = new StringBuilder();
            for (String l : prefix()) {
                b.append(l).append('\n');
            }
            b.append(body);
            switch (wrap) {
                case STATEMENTS -> b.append("\n}}\n");
                case MEMBERS -> b.append("\n}\n");
                case UNIT -> { }
            }
            return b.toString();
        }

        /** The line in the Markdown file of line {@code javacLine} of {@link #source()}. */
        long markdownLine(long javacLine) {
            long inBody = javacLine - prefix().size();
            return inBody >= 1 ? line + inBody : line;
        }
    }

    static List<Snippet> snippets(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<Snippet> snippets = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            String indent = open.group(1);
            String marker = open.group(2);
            int start = i;
            List<String> body = new ArrayList<>();
            for (i++; i < lines.size(); i++) {
                String l = lines.get(i);
                if (l.strip().startsWith(marker) && l.strip().replace(marker.substring(0, 1), "").isEmpty()) {
                    break;
                }
                body.add(l.startsWith(indent) ? l.substring(indent.length()) : l.stripLeading());
            }
            if (!open.group(3).equals("java")) {
                continue;
            }
            String directive = "";
            for (int j = start - 1; j >= 0; j--) {
                if (!lines.get(j).isBlank()) {
                    Matcher d = DIRECTIVE.matcher(lines.get(j));
                    directive = d.matches() ? d.group(1) : "";
                    break;
                }
            }
            snippets.add(snippet(file, start + 1, String.join("\n", body), directive));
        }
        return snippets;
    }

    private static Snippet snippet(Path file, int line, String body, String directive) {
        List<String> imports = new ArrayList<>();
        Wrap wrap = null;
        String group = null;
        for (String token : directive.trim().split("\\s+")) {
            if (token.startsWith("imports=")) {
                for (String i : token.substring("imports=".length()).split(",")) {
                    if (!i.isBlank()) {
                        imports.add(i.trim());
                    }
                }
            } else if (token.startsWith("group=")) {
                group = token.substring("group=".length());
            } else if (token.equals("wrap=members")) {
                wrap = Wrap.MEMBERS;
            } else if (token.equals("wrap=statements")) {
                wrap = Wrap.STATEMENTS;
            } else if (!token.isBlank()) {
                throw new IllegalArgumentException(file + ":" + line + ": unknown snippet directive '" + token
                        + "' (known: imports=a.b.*,c.D wrap=members|statements group=name)");
            }
        }
        String code = stripLeadingComments(body);
        boolean asIs = code.startsWith("package ") || code.startsWith("import ");
        if (wrap == null) {
            wrap = asIs || TYPE_DECLARATION.matcher(code).find() ? Wrap.UNIT : Wrap.STATEMENTS;
        }
        return new Snippet(file, line, body, wrap, asIs, imports, group);
    }

    private static String stripLeadingComments(String body) {
        String s = body.stripLeading();
        while (true) {
            if (s.startsWith("//")) {
                int nl = s.indexOf('\n');
                s = nl < 0 ? "" : s.substring(nl + 1).stripLeading();
            } else if (s.startsWith("/*")) {
                int end = s.indexOf("*/");
                s = end < 0 ? "" : s.substring(end + 2).stripLeading();
            } else {
                return s;
            }
        }
    }

    /** GitHub's anchors of a file's headings. */
    static Set<String> anchors(Path file) throws IOException {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String heading : headings(file)) {
            String slug = slug(heading);
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
        }
        return anchors;
    }

    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "").toLowerCase();
        StringBuilder b = new StringBuilder();
        for (int cp : text.codePoints().toArray()) {
            if (Character.isLetterOrDigit(cp) || cp == '-' || cp == '_') {
                b.appendCodePoint(cp);
            } else if (cp == ' ') {
                b.append('-');
            }
        }
        return b.toString();
    }

    private static List<String> headings(Path file) throws IOException {
        List<String> headings = new ArrayList<>();
        boolean inFence = false;
        for (String l : Files.readAllLines(file)) {
            if (FENCE.matcher(l).matches()) {
                inFence = !inFence;
                continue;
            }
            Matcher h = HEADING.matcher(l);
            if (!inFence && h.matches()) {
                headings.add(h.group(2));
            }
        }
        return headings;
    }

    /** The links of {@code file} that do not point at a file (and heading) inside {@code root}. */
    static List<String> brokenLinks(Path root, Path file) throws IOException {
        List<String> broken = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        boolean inFence = false;
        String where = root.relativize(file).toString();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (FENCE.matcher(l).matches()) {
                inFence = !inFence;
                continue;
            }
            if (inFence) {
                continue;
            }
            Matcher m = LINK.matcher(l.replaceAll("`[^`]*`", "``"));
            while (m.find()) {
                String target = m.group(1);
                String problem = problem(root, file, target);
                if (problem != null) {
                    broken.add(where + ":" + (i + 1) + ": " + target + ": " + problem);
                }
            }
        }
        return broken;
    }

    private static String problem(Path root, Path file, String target) throws IOException {
        if (SCHEME.matcher(target).find()) {
            return "not a relative link (link only to files of the repository)";
        }
        if (target.startsWith("/")) {
            return "an absolute path: write it relative to " + root.relativize(file.getParent());
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
        if (!resolved.startsWith(root)) {
            return "outside the repository";
        }
        if (!Files.exists(resolved)) {
            return "no such file";
        }
        if (anchor != null && resolved.toString().endsWith(".md") && !anchors(resolved).contains(anchor)) {
            return "no heading with anchor #" + anchor + " in " + root.relativize(resolved)
                    + " (anchors: " + new LinkedHashSet<>(anchors(resolved)) + ")";
        }
        return null;
    }
}
