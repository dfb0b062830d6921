package io.rpcc.node.internal;

import io.rpcc.legacy.LegacyHttp;
import io.rpcc.legacy.LegacyIdentity;
import io.rpcc.server.RpccServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP/JSON endpoints the node wraps as service functions, one per key
 * {@code rpcc.legacy.http.<function> = <METHOD> <url-template> [option=value ...]} (options:
 * {@code result}, {@code token-env}, {@code token-file}, {@code credential-key}, {@code timeout}),
 * registered with {@link LegacyHttp} after the service jars, so that a result class may be one of theirs.
 * Every value is checked when the configuration is read (a token file read then), the result classes
 * when the services are registered.
 */
public final class LegacyEndpoints {
    private static final Pattern METHOD = Pattern.compile("[A-Za-z]+");
    private static final String FORM = "<METHOD> <url-template> [result=<class>] [token-env=<VARIABLE>] [token-file=<path>]"
            + " [credential-key=<metadata key>] [timeout=<duration>], such as POST http://pricing:8080/quotes/{sku}"
            + " result=com.acme.Quote token-env=PRICING_TOKEN";

    /** One endpoint, as configured. */
    private record Endpoint(ConfigValues.Entry entry, String method, String url, @Nullable String resultClass,
                            LegacyIdentity identity, @Nullable Duration timeout) {
        String describe() {
            return entry.name() + " (" + method + " " + url + (resultClass == null ? "" : " -> " + resultClass) + ")";
        }
    }

    private final List<Endpoint> endpoints;

    private LegacyEndpoints(List<Endpoint> endpoints) {
        this.endpoints = endpoints;
    }

    /**
     * Parses and checks every {@code rpcc.legacy.http.<function>} key of {@code values}.
     *
     * @throws ConfigException for the first one that is wrong, naming its key and origin (never a token)
     */
    public static LegacyEndpoints parse(ConfigValues values) {
        List<Endpoint> endpoints = new ArrayList<>();
        for (ConfigValues.Entry e : values.legacyHttp()) {
            endpoints.add(parse(e, values));
        }
        return new LegacyEndpoints(List.copyOf(endpoints));
    }

    private static Endpoint parse(ConfigValues.Entry e, ConfigValues values) {
        String[] words = e.text().trim().split("\\s+");
        if (words.length < 2 || !METHOD.matcher(words[0]).matches()) {
            throw invalid(e, "an HTTP method and a URL template first");
        }
        String method = words[0].toUpperCase(Locale.ROOT);
        String url = words[1];
        try {
            LegacyHttp.endpoint(method, url); // checks the URL template
        } catch (IllegalArgumentException ex) {
            throw invalid(e, "an absolute http:// or https:// URL template (" + ex.getMessage() + ")");
        }
        String resultClass = null;
        String token = null;
        String credentialKey = null;
        Duration timeout = null;
        for (int i = 2; i < words.length; i++) {
            int equals = words[i].indexOf('=');
            String option = equals <= 0 ? words[i] : words[i].substring(0, equals);
            String value = equals <= 0 ? "" : words[i].substring(equals + 1);
            if (value.isEmpty()) {
                throw invalid(e, "option=value after the URL; '" + option + "' has no value");
            }
            switch (option) {
                case "result" -> resultClass = value;
                case "token-env" -> {
                    token = values.environmentVariable(value);
                    if (token == null || token.isBlank()) {
                        throw invalid(e, "token-env naming an environment variable of the node that holds the token;"
                                + " the node's environment has no (or an empty) " + value);
                    }
                }
                case "token-file" -> {
                    try {
                        token = Files.readString(Path.of(value), StandardCharsets.UTF_8).strip();
                    } catch (IOException | RuntimeException ex) {
                        throw invalid(e, "token-file naming a readable file that holds the token; " + value
                                + " cannot be read (" + ex.getClass().getSimpleName() + ")");
                    }
                }
                case "credential-key" -> credentialKey = value;
                case "timeout" -> {
                    timeout = ConfigValues.parseDuration(value);
                    if (timeout == null || timeout.isZero() || timeout.isNegative()) {
                        throw invalid(e, "timeout=<a duration such as 500ms or 5s, more than 0>");
                    }
                }
                default -> throw invalid(e, "options result, token-env, token-file, credential-key or timeout; '"
                        + option + "' is none of them");
            }
        }
        LegacyIdentity identity = LegacyIdentity.fromChain();
        try {
            if (credentialKey != null) {
                identity = identity.credentialKey(credentialKey);
            }
            if (token != null) {
                identity = identity.orToken(token);
            }
        } catch (IllegalArgumentException ex) {
            throw invalid(e, "a valid credential-key and a token on one line (" + ex.getMessage() + ")");
        }
        return new Endpoint(e, method, url, resultClass, identity, timeout);
    }

    /** Not the value itself: options after the URL may name secrets' places, never repeat them. */
    private static ConfigException invalid(ConfigValues.Entry e, String expected) {
        String[] words = e.text().trim().split("\\s+", 3);
        String shown = words.length >= 2 ? words[0] + " " + words[1] + (words.length > 2 ? " ..." : "") : e.text();
        return new ConfigException(e.key(), e.key() + " = \"" + shown + "\" (from " + e.origin() + "): expected " + expected
                + "; the form is " + FORM);
    }

    /** Whether no endpoint is configured. */
    public boolean isEmpty() {
        return endpoints.isEmpty();
    }

    /**
     * Registers each endpoint on {@code server} as its service function, its result class loaded
     * through {@code classes} (the service jars').
     *
     * @return a description of each, for the log
     * @throws ConfigException if a result class cannot be loaded, or a service function of that name is already registered
     */
    public List<String> registerOn(RpccServer.Builder server, ClassLoader classes) {
        List<String> registered = new ArrayList<>();
        for (Endpoint ep : endpoints) {
            LegacyHttp.Builder b = LegacyHttp.endpoint(ep.method(), ep.url()).identity(ep.identity());
            if (ep.timeout() != null) {
                b.timeout(ep.timeout());
            }
            if (ep.resultClass() != null) {
                try {
                    b.result(Class.forName(ep.resultClass(), true, classes));
                } catch (ClassNotFoundException | LinkageError ex) {
                    throw invalid(ep.entry(), "result=<a class of the service jars or rpcc>; " + ep.resultClass()
                            + " cannot be loaded (" + ex + ")");
                }
            }
            try {
                b.registerOn(server, ep.entry().name());
            } catch (IllegalArgumentException ex) {
                throw invalid(ep.entry(), "a service function name no service jar registers (" + ex.getMessage() + ")");
            }
            registered.add(ep.describe());
        }
        return registered;
    }
}
