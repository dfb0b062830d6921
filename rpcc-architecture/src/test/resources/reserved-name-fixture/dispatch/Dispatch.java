package dispatch;

/** Dispatches on a reserved name as a string: "rpcc.return" in a comment is fine. */
class Dispatch {
    // neither is "rpcc.merge" here, in a line comment
    static final String BLOCK = """
            "rpcc.return" in a text block is not a literal of its own
            """;
    static final char QUOTE = '"';
    static final String NOT_RESERVED = "rpcc.peer";

    static boolean merging(String serviceFunction) {
        String escaped = "a \"quoted\" rpcc.merge";
        return "rpcc.merge".equals(serviceFunction) && !escaped.isEmpty() && QUOTE == '"';
    }
}
