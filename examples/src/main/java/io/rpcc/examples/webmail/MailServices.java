package io.rpcc.examples.webmail;

import java.util.ArrayList;
import java.util.List;

/**
 * What the web mail's servers do, whichever framework carries the calls: the same code serves
 * the rpcc variants and the gRPC-java baseline.
 */
final class MailServices {
    private MailServices() {
    }

    /** Authentication server (front end): logs {@code user} in, giving the cookie the mail server checks. */
    static String login(String user) {
        return "ok:" + user;
    }

    /** Authentication server: whether a cookie is valid. */
    static boolean verify(String cookie) {
        return cookie.startsWith("ok:");
    }

    /** Storage server: the mailbox {@code "user/kb"}, about one message per KB. */
    static Mailbox fetch(String userAndSize) {
        String[] parts = userAndSize.split("/");
        int kb = Integer.parseInt(parts[1]);
        List<String> messages = new ArrayList<>();
        for (int i = 0; i < Math.max(1, kb); i++) {
            messages.add("message " + i + ": " + "x".repeat(1000));
        }
        return new Mailbox(parts[0], messages, List.of());
    }

    /** Ad server: the mailbox with an ad for each message. */
    static Mailbox decorate(Mailbox m) {
        List<String> ads = new ArrayList<>();
        for (int i = 0; i < m.messages().size(); i++) {
            ads.add("ad for message " + i);
        }
        return new Mailbox(m.user(), m.messages(), ads);
    }

    /** The client's check that the page came back whole. */
    static Mailbox checked(Mailbox m) {
        if (m.ads().size() != m.messages().size()) {
            throw new IllegalStateException("the mailbox came back without its ads");
        }
        return m;
    }
}
