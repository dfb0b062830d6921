package io.rpcc.discovery;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The few calls of etcd's v3 JSON gateway (etcd 3.4 and later: {@code POST /v3/...}) that the
 * resolver and the registration need, over {@code java.net.http}. Keys and values travel base64
 * encoded, so the answers' fields read here never hold escaped characters.
 */
final class EtcdGateway {
    private static final Pattern KV = Pattern.compile("\\{[^{}]*?\"key\":\"([A-Za-z0-9+/=]*)\"[^{}]*?\"value\":\"([A-Za-z0-9+/=]*)\"[^{}]*}");
    private static final Pattern ID = Pattern.compile("\"ID\":\"?(-?[0-9]+)\"?");

    private final URI endpoint;
    private final Duration timeout;
    private final HttpClient http;

    EtcdGateway(URI endpoint, Duration timeout) {
        this.endpoint = endpoint;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    URI endpoint() {
        return endpoint;
    }

    /** The keys and values under {@code prefix}, sorted by key. */
    Map<String, String> range(String prefix) throws IOException, InterruptedException {
        String body = "{\"key\":\"" + b64(prefix) + "\",\"range_end\":\"" + b64(prefixEnd(prefix)) + "\"}";
        String answer = post("/v3/kv/range", body);
        Map<String, String> kvs = new TreeMap<>();
        Matcher m = KV.matcher(answer);
        while (m.find()) {
            kvs.put(unb64(m.group(1)), unb64(m.group(2)));
        }
        return kvs;
    }

    /** Grants a lease of {@code ttl}; returns its id. */
    long grant(Duration ttl) throws IOException, InterruptedException {
        String answer = post("/v3/lease/grant", "{\"TTL\":" + Math.max(1, ttl.toSeconds()) + "}");
        Matcher m = ID.matcher(answer);
        if (!m.find()) {
            throw new IOException("etcd at " + endpoint + " granted no lease: " + answer);
        }
        return Long.parseLong(m.group(1));
    }

    /** Puts {@code key} = {@code value} under lease {@code lease}. */
    void put(String key, String value, long lease) throws IOException, InterruptedException {
        post("/v3/kv/put", "{\"key\":\"" + b64(key) + "\",\"value\":\"" + b64(value) + "\",\"lease\":\"" + lease + "\"}");
    }

    /** Renews lease {@code lease} once; false if etcd no longer knows it (it expired). */
    boolean keepAlive(long lease) throws IOException, InterruptedException {
        String answer = post("/v3/lease/keepalive", "{\"ID\":\"" + lease + "\"}");
        return answer.contains("\"TTL\"") && !answer.contains("\"TTL\":\"0\"") && !answer.contains("\"TTL\":0");
    }

    /** Revokes lease {@code lease}: the keys under it are deleted at once. */
    void revoke(long lease) throws IOException, InterruptedException {
        post("/v3/lease/revoke", "{\"ID\":\"" + lease + "\"}");
    }

    private String post(String path, String body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(endpoint.resolve(path)).timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() != 200) {
            throw new IOException("etcd at " + endpoint + " answered " + path + " with HTTP " + response.statusCode()
                    + ": " + response.body());
        }
        return response.body();
    }

    /** The end of the range of keys that start with {@code prefix} (its last byte plus one). */
    static String prefixEnd(String prefix) {
        byte[] b = prefix.getBytes(StandardCharsets.UTF_8);
        b[b.length - 1]++;
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(s.chars().allMatch(c -> c < 0x80)
                ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1));
    }

    private static String unb64(String s) {
        return new String(Base64.getDecoder().decode(s), StandardCharsets.UTF_8);
    }
}
