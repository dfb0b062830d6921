package io.rpcc.examples.webmail;

import java.util.List;

/**
 * A user's messages as they travel from storage to the ad server to the client.
 *
 * @param user the user
 * @param messages the message bodies
 * @param ads the ads chosen for them (empty until the ad server has seen them)
 */
public record Mailbox(String user, List<String> messages, List<String> ads) {
}
