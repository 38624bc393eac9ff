package drivers;

import org.apache.commons.lang3.StringUtils;

/**
 * Calls one commons-lang3 method of the programs table (`src/programs.rs`) on inputs of size `n`,
 * built before the call so that the agent sees only what the method allocates:
 * `java drivers.Lang3 join|split|repeat n`.
 */
public final class Lang3 {
    private Lang3() {
    }

    public static void main(String[] args) {
        String method = args[0];
        int n = Integer.parseInt(args[1]);
        if (method.equals("join")) {
            Object[] words = new Object[n];
            for (int i = 0; i < n; i++) {
                words[i] = "w" + i;
            }
            System.out.println(StringUtils.join(words, ",").length());
        } else if (method.equals("split")) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < n; i++) {
                text.append("w").append(i).append(',');
            }
            String line = text.toString();
            System.out.println(StringUtils.split(line, ",").length);
        } else if (method.equals("repeat")) {
            System.out.println(StringUtils.repeat("ab", n).length());
        } else {
            throw new IllegalArgumentException("unknown method " + method);
        }
    }
}
