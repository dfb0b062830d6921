package io.rpcc.examples.webmail;

import static io.rpcc.examples.Medians.median;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.TypeRegistry;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The web mail application (paper 4.2, figure 6) and its figure 14, on the emulated figure 7
 * network, placed as in section 5.4: the client in Mountain View, the mail and authentication
 * servers in Redmond, the storage and ad servers in Beijing. The mail server checks the client's
 * cookie with the authentication server, then gets the mailbox from storage and has the ad server
 * add ads: with two RPCs (the mailbox crosses Redmond–Beijing twice more), or with a chain
 * storage → ads → mail server.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar webmail [--json] [--sizes 1,10,50,100] [--runs 5]
 * </pre>
 */
public final class WebMail {
    private WebMail() {
    }

    /**
     * One measurement.
     *
     * @param variant {@code chain}, {@code rpc}, or {@code ideal} / {@code ideal-rpc}
     * @param emailKb the size of the mailbox
     * @param medianMs the median latency seen by the client
     */
    public record Row(String variant, int emailKb, double medianMs) {
        String json() {
            return String.format(Locale.ROOT, "{\"scenario\":\"webmail\",\"variant\":\"%s\",\"param\":%d,\"median_ms\":%.2f}",
                    variant, emailKb, medianMs);
        }
    }

    public static void main(String[] args) throws Exception {
        boolean json = false;
        List<Integer> sizes = List.of(1, 10, 50, 100);
        int runs = 5;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--json" -> json = true;
                case "--sizes" -> sizes = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (use --json, --sizes, --runs)");
            }
        }
        List<Row> rows = run(sizes, runs);
        if (json) {
            rows.forEach(r -> System.out.println(r.json()));
            return;
        }
        System.out.println("Web mail latency seen by a client in Mountain View (figure 14), median of " + runs + " runs");
        System.out.printf(Locale.ROOT, "  %8s %9s %9s %9s %9s %10s%n", "email KB", "chain ms", "ideal", "rpc ms", "ideal",
                "reduction");
        for (int i = 0; i < rows.size(); i += 4) {
            Row chain = rows.get(i);
            Row rpc = rows.get(i + 1);
            System.out.printf(Locale.ROOT, "  %8d %9.1f %9.1f %9.1f %9.1f %9.0f%%%n", chain.emailKb(), chain.medianMs(),
                    rows.get(i + 2).medianMs(), rpc.medianMs(), rows.get(i + 3).medianMs(),
                    100 * (1 - chain.medianMs() / rpc.medianMs()));
        }
        System.out.println("(paper: chains reduced web mail latency by 40% to 58%)");
    }

    /** Runs figure 14: both variants, alternately, for each mailbox size. */
    public static List<Row> run(List<Integer> sizesKb, int runs) throws Exception {
        WanTopology topology = WanTopology.paperFigure7();
        List<Row> rows = new ArrayList<>();
        try (WanCluster wan = WanCluster.of(topology, TypeRegistry.of(Mailbox.class))) {
            wan.server("auth", WanTopology.REDMOND, b -> b.service("verify", cookie -> ((String) cookie).startsWith("ok:")));
            wan.server("storage", WanTopology.BEIJING, b -> b.service("fetch", p -> {
                String[] userAndSize = ((String) p).split("/");
                int kb = Integer.parseInt(userAndSize[1]);
                List<String> messages = new ArrayList<>();
                for (int i = 0; i < Math.max(1, kb); i++) {
                    messages.add("message " + i + ": " + "x".repeat(1000));
                }
                return new Mailbox(userAndSize[0], messages, List.of());
            }));
            wan.server("ads", WanTopology.BEIJING, b -> b.service("decorate", p -> {
                Mailbox m = (Mailbox) p;
                List<String> ads = new ArrayList<>();
                for (int i = 0; i < m.messages().size(); i++) {
                    ads.add("ad for message " + i);
                }
                return new Mailbox(m.user(), m.messages(), ads);
            }));
            RpccClient mailOut = wan.client("mail-out", WanTopology.REDMOND);
            ChainingFunctionSource addAds = ChainingFunctionSource.javaResource(WebMail.class, "/chains/AddAds.java");
            wan.server("mail", WanTopology.REDMOND, b -> b.service("inbox", p -> {
                List<?> request = (List<?>) p; // cookie, mailbox ("user/kb"), mode
                if (!(Boolean) mailOut.call("auth", "verify", request.get(0)).join().value()) {
                    throw new SecurityException("bad cookie");
                }
                Mailbox m;
                if ("chain".equals(request.get(2))) {
                    m = (Mailbox) mailOut.runChain(ChainCall.to("storage", "fetch").params(request.get(1))
                            .chainingFunction(addAds).state(ChainState.of("ads", "ads"))).value();
                } else {
                    Mailbox plain = (Mailbox) mailOut.call("storage", "fetch", request.get(1)).join().value();
                    m = (Mailbox) mailOut.call("ads", "decorate", plain).join().value();
                }
                return m;
            }));
            RpccClient client = wan.client("browser", WanTopology.MOUNTAIN_VIEW);
            for (int kb : sizesKb) {
                List<Double> chain = new ArrayList<>();
                List<Double> rpc = new ArrayList<>();
                for (int r = -1; r < runs; r++) { // r = -1 warms both paths up
                    double c = inbox(client, kb, "chain");
                    double p = inbox(client, kb, "rpc");
                    if (r >= 0) {
                        chain.add(c);
                        rpc.add(p);
                    }
                }
                rows.add(new Row("chain", kb, median(chain)));
                rows.add(new Row("rpc", kb, median(rpc)));
                rows.add(new Row("ideal", kb, idealMs(topology, kb * 1024L + 1024, true)));
                rows.add(new Row("ideal-rpc", kb, idealMs(topology, kb * 1024L + 1024, false)));
            }
        }
        return rows;
    }

    private static double inbox(RpccClient client, int kb, String mode) {
        long start = System.nanoTime();
        Mailbox m = (Mailbox) client.call("mail", "inbox", List.of("ok:alice", "alice/" + kb, mode)).join().value();
        if (m.ads().size() != m.messages().size()) {
            throw new IllegalStateException("the mailbox came back without its ads");
        }
        return (System.nanoTime() - start) / 1e6;
    }

    /**
     * The ideal latency from the topology alone (zero processing): every message's one-way latency,
     * plus the mailbox's transmission on each link it crosses (requests are small).
     */
    public static double idealMs(WanTopology t, long mailboxBytes, boolean chain) {
        String mv = WanTopology.MOUNTAIN_VIEW;
        String rd = WanTopology.REDMOND;
        String bj = WanTopology.BEIJING;
        long ns = t.link(mv, rd).latency().toNanos()                          // client → mail
                + 2 * t.link(rd, rd).latency().toNanos()                      // mail ↔ auth
                + t.link(rd, bj).latency().toNanos();                         // mail → storage
        if (chain) {
            ns += t.link(bj, bj).latency().toNanos() + t.link(bj, bj).transmissionNanos(mailboxBytes) // storage → ads
                    + t.link(bj, rd).latency().toNanos() + t.link(bj, rd).transmissionNanos(mailboxBytes); // ads → mail
        } else {
            ns += t.link(bj, rd).latency().toNanos() + t.link(bj, rd).transmissionNanos(mailboxBytes)  // storage → mail
                    + t.link(rd, bj).latency().toNanos() + t.link(rd, bj).transmissionNanos(mailboxBytes) // mail → ads
                    + t.link(bj, rd).latency().toNanos() + t.link(bj, rd).transmissionNanos(mailboxBytes); // ads → mail
        }
        ns += t.link(rd, mv).latency().toNanos() + t.link(rd, mv).transmissionNanos(mailboxBytes);      // mail → client
        return ns / 1e6;
    }
}
