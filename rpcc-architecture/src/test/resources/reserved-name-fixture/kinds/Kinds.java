package kinds;

/** The one place allowed to spell the reserved names. */
enum Kinds {
    RETURN("rpcc.return"),
    MERGE("rpcc.merge");

    final String wireName;

    Kinds(String wireName) {
        this.wireName = wireName;
    }

    static boolean reserved(String name) {
        return name.startsWith("rpcc.");
    }
}
