package power;

import jolden.Alloc;

/**
 * Power: pricing on a power distribution network. The root (a substation) feeds `feeders`
 * feeders, each a line of `laterals` laterals, each with `branches` branches, each serving
 * `leaves` customers. Every round each customer states its demand (real and reactive power) at
 * the current prices, the demands flow up with the lines' losses added, and the root moves the
 * prices towards the price at which the total real demand meets the supply. Written here from the
 * algorithm (JOlden's power), not from any implementation. The original has no size options (its
 * sizes are 10, 20, 5 and 10); `-f -l -b -n` override them here and `-i` sets the rounds.
 *
 * Analyzed methods (closed forms in the README): {@link #build(int, int, int, int)} and
 * {@link #solve(Root, int, int, int, int, int)} (one {@link Demand} per node per round).
 */
public final class Power {
    static final double SUPPLY = 1.0e4;

    private static int feeders = 10;
    private static int laterals = 20;
    private static int branches = 5;
    private static int leaves = 10;
    private static int rounds = 10;

    public static void main(String[] args) {
        parseCmdLine(args);
        Alloc.start();
        Root root = build(feeders, laterals, branches, leaves);
        Alloc.report("power.Power.build");
        Alloc.start();
        solve(root, rounds, feeders, laterals, branches, leaves);
        Alloc.report("power.Power.solve");
        System.out.println("power: price " + root.priceP + " reactive price " + root.priceQ);
    }

    /**
     * Reads the options, as the original does: `-h` or an option it does not know prints the
     * usage and ends the program.
     */
    private static void parseCmdLine(String[] args) {
        int i = 0;
        while (i < args.length && args[i].startsWith("-")) {
            String arg = args[i++];
            if (arg.equals("-f")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-f requires feeders");
                }
                feeders = Integer.parseInt(args[i++]);
            } else             if (arg.equals("-l")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-l requires laterals per feeder");
                }
                laterals = Integer.parseInt(args[i++]);
            } else             if (arg.equals("-b")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-b requires branches per lateral");
                }
                branches = Integer.parseInt(args[i++]);
            } else             if (arg.equals("-n")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-n requires customers per branch");
                }
                leaves = Integer.parseInt(args[i++]);
            } else             if (arg.equals("-i")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-i requires rounds of pricing");
                }
                rounds = Integer.parseInt(args[i++]);
            } else if (arg.equals("-p") || arg.equals("-m")) {
                // The original's printing flags: the results are always printed.
            } else {
                usage();
            }
        }
    }

    /** Prints the options and their defaults and ends the program. */
    private static void usage() {
        System.err.println("usage: java power.Power [-f feeders] [-l laterals] [-b branches]"
                + " [-n leaves] [-i rounds] [-p] [-m] [-h]");
        System.err.println("    -f  feeders (10)");
        System.err.println("    -l  laterals per feeder (20)");
        System.err.println("    -b  branches per lateral (5)");
        System.err.println("    -n  customers per branch (10)");
        System.err.println("    -i  rounds of pricing (10)");
        System.exit(0);
    }

    /** The network with the given fan-outs; customer i of a branch has weight 1 + i/leaves. */
    static Root build(int feeders, int laterals, int branches, int leaves) {
        Root root = new Root();
        Alloc.object();
        root.priceP = 1.0;
        root.priceQ = 1.0;
        root.feeders = new Feeder[feeders];
        Alloc.array(feeders);
        for (int f = 0; f < feeders; f++) {
            Feeder feeder = new Feeder();
            Alloc.object();
            feeder.laterals = new Lateral[laterals];
            Alloc.array(laterals);
            for (int l = 0; l < laterals; l++) {
                Lateral lateral = new Lateral();
                Alloc.object();
                lateral.resistance = 1.0e-6 * (l + 1);
                lateral.branches = new Branch[branches];
                Alloc.array(branches);
                for (int b = 0; b < branches; b++) {
                    lateral.branches[b] = buildBranch(leaves);
                }
                feeder.laterals[l] = lateral;
            }
            root.feeders[f] = feeder;
        }
        return root;
    }

    private static Branch buildBranch(int leaves) {
        Branch branch = new Branch();
        Alloc.object();
        branch.resistance = 2.0e-6;
        branch.leaves = new Leaf[leaves];
        Alloc.array(leaves);
        for (int i = 0; i < leaves; i++) {
            Leaf leaf = new Leaf();
            Alloc.object();
            leaf.weightP = 1.0 + (double) i / leaves;
            leaf.weightQ = 0.5 + (double) i / (2 * leaves);
            branch.leaves[i] = leaf;
        }
        return branch;
    }

    /** `rounds` rounds of pricing; the prices are left in the root. */
    static void solve(Root root, int rounds, int feeders, int laterals, int branches, int leaves) {
        for (int r = 0; r < rounds; r++) {
            Demand total = new Demand();
            Alloc.object();
            for (int f = 0; f < feeders; f++) {
                Demand d = feederDemand(root.feeders[f], root, laterals, branches, leaves);
                total.p += d.p;
                total.q += d.q;
            }
            // Demand falls as the price rises (it goes as 1/price), so scaling the price by
            // demand/supply moves the total towards the supply.
            root.priceP *= total.p / SUPPLY;
            root.priceQ *= total.q / (0.5 * SUPPLY);
        }
    }

    private static Demand feederDemand(Feeder feeder, Root root, int laterals, int branches,
            int leaves) {
        Demand sum = new Demand();
        Alloc.object();
        for (int l = 0; l < laterals; l++) {
            Lateral lateral = feeder.laterals[l];
            Demand d = lateralDemand(lateral, root, branches, leaves);
            sum.add(d, lateral.resistance);
        }
        return sum;
    }

    private static Demand lateralDemand(Lateral lateral, Root root, int branches, int leaves) {
        Demand sum = new Demand();
        Alloc.object();
        for (int b = 0; b < branches; b++) {
            Branch branch = lateral.branches[b];
            sum.add(branchDemand(branch, root, leaves), branch.resistance);
        }
        return sum;
    }

    private static Demand branchDemand(Branch branch, Root root, int leaves) {
        Demand sum = new Demand();
        Alloc.object();
        for (int i = 0; i < leaves; i++) {
            sum.add(leafDemand(branch.leaves[i], root), 0.0);
        }
        return sum;
    }

    /** A customer maximising weight * log(consumption) - price * consumption. */
    private static Demand leafDemand(Leaf leaf, Root root) {
        Demand d = new Demand();
        Alloc.object();
        d.p = leaf.weightP / root.priceP;
        d.q = leaf.weightQ / root.priceQ;
        return d;
    }
}

final class Root {
    Feeder[] feeders;
    double priceP;
    double priceQ;
}

final class Feeder {
    Lateral[] laterals;
}

final class Lateral {
    Branch[] branches;
    double resistance;
}

final class Branch {
    Leaf[] leaves;
    double resistance;
}

final class Leaf {
    double weightP;
    double weightQ;
}

final class Demand {
    double p;
    double q;

    /** Adds `d` as seen through a line of resistance `r`: the losses grow with the load squared. */
    void add(Demand d, double r) {
        p += d.p + r * (d.p * d.p + d.q * d.q);
        q += d.q;
    }
}
