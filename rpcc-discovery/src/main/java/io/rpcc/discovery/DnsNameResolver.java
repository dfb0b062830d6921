package io.rpcc.discovery;

import io.rpcc.core.NameResolver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link NameResolver} backed by DNS, through Netty's DNS client. Server {@code name} is looked up
 * as {@code <name>.<domain>} in one of two ways ({@link Lookup}):
 * <ul>
 * <li><b>SRV</b> (RFC 2782): the SRV records at {@code _rpcc._tcp.<name>.<domain>} (the template is
 * {@linkplain Builder#srvName configurable}) give target hosts and ports; their endpoints are ordered
 * by priority, lowest first — the primary, then its backups, to which a node
 * {@linkplain NameResolver#resolveAll fails over} — and within a priority by weight, heaviest first,
 * ties by target name and port. (RFC 2782 picks among equal priorities at random in proportion to
 * weight; this resolver orders them deterministically, so that every node tries the same endpoint
 * first.) Each target's A, then AAAA, records give its addresses. A target of {@code "."} means
 * "no such service here" and is skipped.</li>
 * <li><b>A/AAAA</b>: the addresses of {@code <name>.<domain>}, each with the {@linkplain Builder#port
 * configured port}, are the name's endpoints (a pool), in the order the DNS server gives them.</li>
 * </ul>
 * By default SRV is asked first and, where the SRV name does not exist or holds no SRV record,
 * A/AAAA.
 *
 * <p>Each name's answer is cached for the smallest TTL among the records it was made of, clamped to
 * {@linkplain Builder#ttl the configured bounds} (1 s to 5 min by default); a name is looked up again
 * at its first use after that. A name that does not exist (NXDOMAIN, or no record; or too long for
 * DNS) resolves to nothing, cached for the lower bound. If no DNS server answers a refresh (each
 * query times out after {@linkplain Builder#queryTimeout 2 s by default}, then the next server is
 * asked) or all answer with an error, the last good answer is kept — and served without asking again
 * for {@linkplain Builder#retryAfterFailure 5 s} — and the outage is logged once, until DNS answers
 * again; a name never resolved then resolves to nothing. Lookups block the calling thread (rpcc resolves on worker
 * threads, never on event loops); concurrent lookups of one name wait for a single query.
 *
 * <p>The resolver owns an event loop thread and its sockets: {@link #close} releases them.
 *
 * <pre>{@code
 * DnsNameResolver names = DnsNameResolver.builder().domain("rpcc.example.com").port(7001).build();
 * RpccServer server = RpccServer.builder("s1").resolver(names)...build().start();
 * }</pre>
 */
public final class DnsNameResolver implements NameResolver, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DnsNameResolver.class);
    private static final Comparator<DnsQueries.Service> SRV_ORDER = Comparator
            .comparingInt(DnsQueries.Service::priority)
            .thenComparing(Comparator.comparingInt(DnsQueries.Service::weight).reversed())
            .thenComparing(DnsQueries.Service::target)
            .thenComparingInt(DnsQueries.Service::port);

    /** Which records give a name's endpoints. */
    public enum Lookup {
        /** SRV records only: a name without them resolves to nothing. */
        SRV,
        /** A and AAAA records only, with the configured port. */
        ADDRESS,
        /** SRV records, or where there are none, A and AAAA records with the configured port. */
        SRV_THEN_ADDRESS
    }

    private record Answer(List<InetSocketAddress> endpoints, long untilNanos) {
    }

    /** A name's last answer, and the lock its refreshes take. */
    private static final class Entry {
        final ReentrantLock refreshing = new ReentrantLock();
        volatile @Nullable Answer answer;
    }

    private final DnsQueries dns;
    private final String domain;
    private final String srvName;
    private final Lookup lookup;
    private final int port;
    private final boolean ipv6;
    private final long minTtlNanos;
    private final long maxTtlNanos;
    private final long retryNanos;
    private final Map<String, Entry> cache = new ConcurrentHashMap<>();
    private final Outage outage;
    private volatile boolean closed;

    private DnsNameResolver(Builder b) {
        this.domain = b.domain;
        this.srvName = b.srvName;
        this.lookup = b.lookup;
        this.port = b.port;
        this.ipv6 = b.ipv6;
        this.minTtlNanos = b.minTtl.toNanos();
        this.maxTtlNanos = b.maxTtl.toNanos();
        this.retryNanos = b.retryAfterFailure.toNanos();
        this.dns = new DnsQueries(b.servers.isEmpty() ? DnsQueries.systemServers() : b.servers, b.queryTimeout);
        this.outage = new Outage(log, "DNS at " + dns.servers());
    }

    /** A builder: by default, the system's DNS servers, no domain, SRV then A/AAAA (which needs a port). */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Optional<InetSocketAddress> resolve(String server) {
        return resolveAll(server).stream().findFirst();
    }

    /**
     * The endpoints of {@code server}: its SRV targets' addresses in priority order, or its
     * addresses with the configured port; the cached answer while its TTL lasts.
     *
     * @throws IllegalStateException if this resolver was closed
     */
    @Override
    public List<InetSocketAddress> resolveAll(String server) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        Entry entry = cache.computeIfAbsent(server, s -> new Entry());
        Answer known = entry.answer;
        if (known != null && System.nanoTime() - known.untilNanos() < 0) {
            return known.endpoints();
        }
        entry.refreshing.lock();
        try {
            known = entry.answer;
            if (known != null && System.nanoTime() - known.untilNanos() < 0) {
                return known.endpoints(); // another thread refreshed it meanwhile
            }
            entry.answer = refresh(server, known);
            return entry.answer.endpoints();
        } finally {
            entry.refreshing.unlock();
        }
    }

    private Answer refresh(String server, @Nullable Answer known) {
        List<InetSocketAddress> lastGood = known == null ? List.of() : known.endpoints();
        // DNS away: the last good answer, not asked again for retryAfterFailure
        return outage.ask(server, lastGood, () -> lookUp(server))
                .orElseGet(() -> new Answer(lastGood, System.nanoTime() + retryNanos));
    }

    private Answer lookUp(String server) throws IOException, InterruptedException {
        String srv = fqdn(srvName.replace("{name}", server));
        if (lookup != Lookup.ADDRESS && isDnsName(srv)) {
            List<DnsQueries.Service> services = dns.services(srv);
            if (!services.isEmpty() || lookup == Lookup.SRV) {
                return endpoints(services);
            }
        }
        Set<InetSocketAddress> endpoints = new LinkedHashSet<>();
        String host = fqdn(server);
        long ttl = lookup != Lookup.SRV && isDnsName(host) ? addresses(host, port, endpoints, maxTtlNanos) : 0;
        return answer(endpoints, ttl);
    }

    private Answer endpoints(List<DnsQueries.Service> services) throws IOException, InterruptedException {
        Set<InetSocketAddress> endpoints = new LinkedHashSet<>();
        long ttl = maxTtlNanos;
        for (DnsQueries.Service s : services.stream().sorted(SRV_ORDER).toList()) {
            ttl = Math.min(ttl, seconds(s.ttl()));
            if (!s.target().equals(".")) {
                ttl = addresses(s.target(), s.port(), endpoints, ttl);
            }
        }
        return answer(endpoints, ttl);
    }

    /** Adds the A, then AAAA, addresses of {@code fqdn} with {@code port}; the least of {@code ttl} and theirs. */
    private long addresses(String fqdn, int port, Set<InetSocketAddress> endpoints, long ttl)
            throws IOException, InterruptedException {
        List<DnsQueries.Address> found = new ArrayList<>(dns.addresses(fqdn, false));
        if (ipv6) {
            found.addAll(dns.addresses(fqdn, true));
        }
        for (DnsQueries.Address a : found) {
            endpoints.add(new InetSocketAddress(a.address(), port));
            ttl = Math.min(ttl, seconds(a.ttl()));
        }
        return ttl;
    }

    private Answer answer(Set<InetSocketAddress> endpoints, long ttlNanos) {
        long ttl = endpoints.isEmpty() ? minTtlNanos : Math.clamp(ttlNanos, minTtlNanos, maxTtlNanos);
        return new Answer(List.copyOf(endpoints), System.nanoTime() + ttl);
    }

    private static long seconds(long ttl) {
        return Duration.ofSeconds(ttl).toNanos();
    }

    /** Labels of 1 to 63 bytes, 255 bytes in all on the wire (RFC 1035 2.3.4); a name no DNS name can hold does not exist. */
    private static boolean isDnsName(String fqdn) {
        String name = fqdn.substring(0, fqdn.length() - 1);
        return name.length() <= 253 && Arrays.stream(name.split("\\.", -1))
                .allMatch(label -> !label.isEmpty() && label.getBytes(StandardCharsets.UTF_8).length <= 63);
    }

    private String fqdn(String name) {
        return name + (domain.isEmpty() ? "" : "." + domain) + ".";
    }

    /** Stops the event loop and closes the sockets; lookups fail afterwards. */
    @Override
    public void close() {
        closed = true;
        dns.close();
    }

    @Override
    public String toString() {
        return "DnsNameResolver[" + dns.servers() + (domain.isEmpty() ? "" : " ." + domain) + " " + lookup + "]";
    }

    /** Configures a {@link DnsNameResolver}; {@link #build} starts it. */
    public static final class Builder {
        private final List<InetSocketAddress> servers = new ArrayList<>();
        private String domain = "";
        private String srvName = "_rpcc._tcp.{name}";
        private Lookup lookup = Lookup.SRV_THEN_ADDRESS;
        private int port = -1;
        private boolean ipv6 = true;
        private Duration queryTimeout = Duration.ofSeconds(2);
        private Duration minTtl = Duration.ofSeconds(1);
        private Duration maxTtl = Duration.ofMinutes(5);
        private Duration retryAfterFailure = Duration.ofSeconds(5);

        private Builder() {
        }

        /**
         * Adds a DNS server to ask (recursive or authoritative for the names); servers are asked in the
         * order added, the next one when one fails. Without any, the system's (resolv.conf) are asked.
         */
        public Builder server(InetSocketAddress server) {
            servers.add(Objects.requireNonNull(server, "server"));
            return this;
        }

        /**
         * The domain appended to every name, e.g. {@code rpcc.example.com}: server {@code s1} is then
         * {@code s1.rpcc.example.com}. Default: none (names are looked up as they are, never through
         * resolv.conf's search list).
         */
        public Builder domain(String domain) {
            String d = domain.endsWith(".") ? domain.substring(0, domain.length() - 1) : domain;
            this.domain = d.startsWith(".") ? d.substring(1) : d;
            return this;
        }

        /**
         * The SRV name of a server, {@code {name}} standing for the server's name, before the domain is
         * appended. Default: {@code _rpcc._tcp.{name}}.
         */
        public Builder srvName(String template) {
            if (!template.contains("{name}")) {
                throw new IllegalArgumentException("the SRV name template must contain {name}, got '" + template + "'");
            }
            this.srvName = template;
            return this;
        }

        /** Which records give a name's endpoints. Default: {@link Lookup#SRV_THEN_ADDRESS}. */
        public Builder lookup(Lookup lookup) {
            this.lookup = Objects.requireNonNull(lookup, "lookup");
            return this;
        }

        /** The port of the endpoints found through A/AAAA records; required unless the lookup is {@link Lookup#SRV}. */
        public Builder port(int port) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("not a port: " + port);
            }
            this.port = port;
            return this;
        }

        /** Whether AAAA records are asked too (after A records, so IPv4 endpoints come first). Default: true. */
        public Builder ipv6(boolean ipv6) {
            this.ipv6 = ipv6;
            return this;
        }

        /** How long a DNS server has to answer one query before the next one is asked. Default: 2 s. */
        public Builder queryTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("the query timeout must be positive, got " + timeout);
            }
            this.queryTimeout = timeout;
            return this;
        }

        /**
         * The bounds within which a record TTL is taken as how long to cache an answer; a name that
         * does not exist is cached for {@code min}. Default: 1 s and 5 min.
         */
        public Builder ttl(Duration min, Duration max) {
            if (min.isNegative() || max.compareTo(min) < 0) {
                throw new IllegalArgumentException("need 0 <= min <= max, got " + min + " and " + max);
            }
            this.minTtl = min;
            this.maxTtl = max;
            return this;
        }

        /**
         * How long, after a refresh that no DNS server answered, the last good answer is served
         * before DNS is asked again (so that not every lookup waits for the timeout). Default: 5 s.
         */
        public Builder retryAfterFailure(Duration retryAfterFailure) {
            if (retryAfterFailure.isNegative()) {
                throw new IllegalArgumentException("must not be negative: " + retryAfterFailure);
            }
            this.retryAfterFailure = retryAfterFailure;
            return this;
        }

        /**
         * A resolver with this configuration, its event loop started.
         *
         * @throws IllegalStateException if A/AAAA lookups are configured without a port, or there is no
         *         DNS server to ask
         */
        public DnsNameResolver build() {
            if (lookup != Lookup.SRV && port < 0) {
                throw new IllegalStateException("A/AAAA lookups need the endpoints' port: port(int), or lookup(Lookup.SRV)");
            }
            return new DnsNameResolver(this);
        }
    }
}
