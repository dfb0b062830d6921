package io.rpcc.node.internal;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The node's configuration as text: the keys of an optional properties file, overridden by their
 * environment variables ({@code rpcc.a.b-c} by {@code RPCC_A_B_C}), then the defaults. Each value
 * remembers where it came from, and the typed getters throw a {@link ConfigException} naming the
 * key, the value, its origin and what was expected. Besides the fixed keys ({@link ConfigKey}), the
 * keys {@code rpcc.legacy.http.<function>} ({@code RPCC_LEGACY_HTTP_<FUNCTION>}) name one service function
 * each ({@link LegacyEndpoints}).
 */
public final class ConfigValues {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");
    private static final Pattern BYTES = Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB)?");

    private record Value(String text, String origin) {
    }

    /** The prefix of the keys that wrap an HTTP/JSON endpoint as service function {@code <function>}. */
    public static final String LEGACY_HTTP_PREFIX = "rpcc.legacy.http.";
    /** The environment's form of {@link #LEGACY_HTTP_PREFIX}: {@code RPCC_LEGACY_HTTP_<FUNCTION>}. */
    public static final String LEGACY_HTTP_VARIABLE_PREFIX = "RPCC_LEGACY_HTTP_";

    /**
     * A key of a family rather than a fixed {@link ConfigKey}, such as {@code rpcc.legacy.http.quote}.
     *
     * @param name what the key names (the service function)
     * @param key the key as written in the file, or the environment variable
     * @param text its value
     * @param origin where it was set
     */
    public record Entry(String name, String key, String text, String origin) {
    }

    private final Map<ConfigKey, Value> values = new LinkedHashMap<>();
    /** {@code rpcc.legacy.http.<function>} by function name. */
    private final Map<String, Entry> legacyHttp = new TreeMap<>();
    private Map<String, String> environment = Map.of();

    private ConfigValues() {
    }

    /**
     * Reads the command line ({@code --config <file>}, optional) and the environment.
     *
     * @param warnings receives one line per environment variable that starts with {@code RPCC_}
     *     but names no key (ignored, since the environment may hold unrelated variables)
     * @throws ConfigException for an unknown argument, an unreadable file or an unknown key in it
     */
    public static ConfigValues load(String[] args, Map<String, String> environment, Consumer<String> warnings) {
        Path file = configFile(args);
        Map<String, String> fromFile = file == null ? Map.of() : readFile(file);
        ConfigValues config = new ConfigValues();
        config.environment = Map.copyOf(environment);
        fromFile.forEach((k, v) -> {
            if (k.startsWith(LEGACY_HTTP_PREFIX)) {
                config.putLegacyHttp(k, v, String.valueOf(file));
            }
        });
        environment.forEach((k, v) -> {
            if (k.startsWith(LEGACY_HTTP_VARIABLE_PREFIX)) {
                config.putLegacyHttp(k, v, "environment variable " + k); // the environment wins over the file
            }
        });
        for (ConfigKey key : ConfigKey.values()) {
            String fromEnvironment = environment.get(key.environmentVariable());
            if (fromEnvironment != null) {
                config.values.put(key, new Value(fromEnvironment.trim(), "environment variable " + key.environmentVariable()));
            } else if (fromFile.containsKey(key.key())) {
                config.values.put(key, new Value(fromFile.get(key.key()).trim(), String.valueOf(file)));
            }
        }
        environment.keySet().stream().filter(v -> v.startsWith("RPCC_") && !v.startsWith(LEGACY_HTTP_VARIABLE_PREFIX)).sorted()
                .filter(v -> Arrays.stream(ConfigKey.values()).noneMatch(k -> k.environmentVariable().equals(v)))
                .forEach(v -> warnings.accept("rpcc node: ignoring environment variable " + v + ": it names no configuration key"));
        return config;
    }

    /** Values given directly (tests), as if read from a file named {@code origin}. */
    public static ConfigValues of(Map<String, String> properties, String origin) {
        ConfigValues config = new ConfigValues();
        properties.forEach((k, v) -> {
            if (k.startsWith(LEGACY_HTTP_PREFIX)) {
                config.putLegacyHttp(k, v, origin);
            } else {
                config.values.put(known(k, origin), new Value(v.trim(), origin));
            }
        });
        return config;
    }

    /**
     * Records {@code key} (a file's {@code rpcc.legacy.http.<function>} or a variable's
     * {@code RPCC_LEGACY_HTTP_<FUNCTION>}, whose function is its rest in lower case with {@code _} as {@code -}).
     */
    private void putLegacyHttp(String key, String text, String origin) {
        String function = key.startsWith(LEGACY_HTTP_PREFIX) ? key.substring(LEGACY_HTTP_PREFIX.length())
                : key.substring(LEGACY_HTTP_VARIABLE_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '-');
        if (function.isBlank()) {
            throw new ConfigException(key, key + " (from " + origin + ") names no service function: expected "
                    + LEGACY_HTTP_PREFIX + "<function> (" + LEGACY_HTTP_VARIABLE_PREFIX + "<FUNCTION> in the environment)");
        }
        legacyHttp.put(function, new Entry(function, key, text.trim(), origin));
    }

    /** The keys {@code rpcc.legacy.http.<function>} and their variables, by function name. */
    public List<Entry> legacyHttp() {
        return List.copyOf(legacyHttp.values());
    }

    /** The node's environment variable {@code name} (for values that name one, such as a token's), or {@code null}. */
    public @Nullable String environmentVariable(String name) {
        return environment.get(name);
    }

    private static @Nullable Path configFile(String[] args) {
        Path file = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--config") && i + 1 < args.length) {
                file = Path.of(args[++i]);
            } else if (arg.startsWith("--config=")) {
                file = Path.of(arg.substring("--config=".length()));
            } else {
                throw new ConfigException(arg, "bad command line: '" + arg
                        + "': expected --config <file> (a .properties file), or no arguments to configure the node from RPCC_* environment variables only");
            }
        }
        return file;
    }

    private static Map<String, String> readFile(Path file) {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        } catch (NoSuchFileException e) {
            throw new ConfigException("--config", "--config " + file + ": no such file (working directory "
                    + Path.of("").toAbsolutePath() + "): expected a readable .properties file");
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException("--config", "--config " + file + ": cannot be read (" + e.getMessage()
                    + "): expected a readable .properties file in UTF-8");
        }
        Map<String, String> result = new LinkedHashMap<>();
        for (String name : properties.stringPropertyNames()) {
            result.put(name.startsWith(LEGACY_HTTP_PREFIX) ? name : known(name, file.toString()).key(), properties.getProperty(name));
        }
        return result;
    }

    private static ConfigKey known(String name, String origin) {
        return ConfigKey.of(name).orElseThrow(() -> new ConfigException(name, "unknown key " + name + " (in " + origin
                + "): expected one of the keys listed in docs/reference/node-properties.md; did you mean "
                + ConfigKey.closestTo(name).key() + "?"));
    }

    /** Whether the file or the environment sets {@code key} (rather than its default). */
    public boolean isSet(ConfigKey key) {
        return values.containsKey(key);
    }

    /** The key's text, or its default; {@code null} if it has neither, or is set to an empty value. */
    public @Nullable String text(ConfigKey key) {
        Value v = values.get(key);
        String text = v != null ? v.text : key.defaultValue();
        return text == null || text.isEmpty() ? null : text;
    }

    /** The key's text; throws if it has none. */
    public String required(ConfigKey key, String expected) {
        String text = text(key);
        if (text == null) {
            throw new ConfigException(key.key(), key.key() + " is not set: expected " + expected + " (set " + key.key()
                    + " in the --config file or the environment variable " + key.environmentVariable() + ")");
        }
        return text;
    }

    /** A {@link ConfigException} for {@code key}'s current value, which is not what {@code expected} says. */
    public ConfigException invalid(ConfigKey key, String expected) {
        Value v = values.get(key);
        String text = v != null ? v.text : key.defaultValue();
        String origin = v != null ? v.origin : "default";
        return new ConfigException(key.key(), key.key() + " = \"" + text + "\" (from " + origin + "): expected " + expected);
    }

    /** An integer in {@code [min, max]}. */
    public int integer(ConfigKey key, int min, int max) {
        String text = required(key, "an integer from " + min + " to " + max);
        try {
            int value = Integer.parseInt(text);
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(key, "an integer from " + min + " to " + max);
    }

    /** A fraction: a decimal number more than 0 and at most 1 ({@code 0.5}). */
    public double fraction(ConfigKey key) {
        String text = required(key, "a decimal number more than 0 and at most 1");
        try {
            double value = Double.parseDouble(text);
            if (value > 0 && value <= 1) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(key, "a decimal number more than 0 and at most 1 (such as 0.5)");
    }

    /** {@code true} or {@code false} (any case). */
    public boolean bool(ConfigKey key) {
        String text = required(key, "true or false");
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid(key, "true or false");
        };
    }

    /**
     * A duration: a number with a unit ({@code 300ms}, {@code 10s}, {@code 5m}, {@code 1h},
     * {@code 1d}), or ISO-8601 ({@code PT10S}); {@code 0} only if {@code zeroAllowed}.
     */
    public Duration duration(ConfigKey key, boolean zeroAllowed) {
        String expected = "a duration such as 300ms, 10s, 5m, 1h or PT10S" + (zeroAllowed ? " (0 allowed)" : ", more than 0");
        String text = required(key, expected);
        Duration d = parseDuration(text);
        if (d == null || d.isNegative() || (d.isZero() && !zeroAllowed)) {
            throw invalid(key, expected);
        }
        return d;
    }

    /** A duration as {@link #duration} reads it, or {@code null} if {@code text} is not one. */
    static @Nullable Duration parseDuration(String text) {
        if (text.equals("0")) {
            return Duration.ZERO;
        }
        Matcher m = DURATION.matcher(text);
        if (m.matches()) {
            try {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                };
            } catch (ArithmeticException | NumberFormatException e) {
                return null;
            }
        }
        try {
            return Duration.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** A size in bytes, more than 0 and at most {@code max}: a number, optionally with B, KiB, MiB or GiB. */
    public long bytes(ConfigKey key, long min, long max) {
        String expected = "a size from " + min + " to " + max + " bytes, such as 65536, 512KiB, 16MiB or 1GiB";
        String text = required(key, expected);
        Matcher m = BYTES.matcher(text);
        if (m.matches()) {
            try {
                int shift = m.group(2) == null ? 0 : switch (m.group(2)) {
                    case "KiB" -> 10;
                    case "MiB" -> 20;
                    case "GiB" -> 30;
                    default -> 0;
                };
                long n = Long.parseLong(m.group(1));
                if (n <= (Long.MAX_VALUE >> shift) && (n << shift) >= min && (n << shift) <= max) {
                    return n << shift;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw invalid(key, expected);
    }
}
