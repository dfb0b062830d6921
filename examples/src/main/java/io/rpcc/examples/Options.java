package io.rpcc.examples;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Command-line options of the scenario runners: {@code --json}, {@code --charts DIR} (where PNG
 * charts go, default {@code target/figures}), {@code --no-charts}, {@code --warmup-ms N} (how long
 * both variants run before measuring, default 3000), and each runner's own {@code --name value}
 * options.
 */
public final class Options {
    private final Map<String, String> values = new HashMap<>();

    private Options() {
    }

    /** A command line the runner does not understand; {@code Main} prints its message and exits with 2. */
    public static final class UsageException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public UsageException(String message) {
            super(message);
        }
    }

    /**
     * Parses {@code args}; {@code valued} are the runner's options that take a value.
     *
     * @throws UsageException on an unknown option, naming the ones known
     */
    public static Options parse(String[] args, String... valued) {
        Set<String> takesValue = new java.util.HashSet<>(Arrays.asList(valued));
        takesValue.add("--charts");
        takesValue.add("--warmup-ms");
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--json") || a.equals("--no-charts")) {
                o.values.put(a, "true");
            } else if (takesValue.contains(a) && i + 1 < args.length) {
                o.values.put(a, args[++i]);
            } else {
                throw new UsageException("unknown option " + a + " (known: --json, --charts DIR, --no-charts, --warmup-ms N"
                        + (valued.length == 0 ? "" : ", " + String.join(" X, ", valued) + " X") + ")");
            }
        }
        return o;
    }

    /** Whether {@code --json} was given. */
    public boolean json() {
        return values.containsKey("--json");
    }

    /** The directory for charts, or {@code null} with {@code --no-charts}. */
    public Path charts() {
        return values.containsKey("--no-charts") ? null : Path.of(values.getOrDefault("--charts", "target/figures"));
    }

    /** How long to warm up before measuring. */
    public Duration warmUp() {
        return Duration.ofMillis(integer("--warmup-ms", 3000));
    }

    /** An integer option. */
    public int integer(String name, int otherwise) {
        return values.containsKey(name) ? Integer.parseInt(values.get(name)) : otherwise;
    }

    /** A comma-separated list of integers. */
    public List<Integer> integers(String name, List<Integer> otherwise) {
        return values.containsKey(name)
                ? Arrays.stream(values.get(name).split(",")).map(String::trim).map(Integer::parseInt).toList()
                : otherwise;
    }

    /** A string option. */
    public String string(String name, String otherwise) {
        return values.getOrDefault(name, otherwise);
    }
}
