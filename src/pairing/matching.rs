//! Maximum-weight matching in a general graph: Edmonds' blossom algorithm with the primal-dual
//! method (Galil, "Efficient algorithms for finding maximum matching in graphs", 1986), in
//! O(n³). Weights are wide unsigned integers; a zero weight is no edge, and no zero edge is
//! ever matched.

use std::fmt;

use super::wide::Wide;

/// The arithmetic the matching needs from a weight.
pub trait Weight: Copy + Ord + fmt::Debug {
    /// Zero, which is also "no edge".
    const ZERO: Self;
    /// The sum.
    fn plus(self, other: Self) -> Self;
    /// The difference; the algorithm only subtracts what is there.
    fn minus(self, other: Self) -> Self;
    /// Half, rounded down.
    fn halved(self) -> Self;
    /// Whether this is zero.
    fn is_nil(&self) -> bool;
}

impl<const N: usize> Weight for Wide<N> {
    const ZERO: Self = Wide::ZERO;
    fn plus(self, other: Self) -> Self {
        self.add(other)
    }
    fn minus(self, other: Self) -> Self {
        self.sub(other)
    }
    fn halved(self) -> Self {
        self.half()
    }
    fn is_nil(&self) -> bool {
        self.is_zero()
    }
}

/// A complete graph on `n` vertices with an editable weight on every edge.
#[derive(Debug, Clone)]
pub struct Graph<W> {
    size: usize,
    weights: Vec<W>,
}

impl<W: Weight> Graph<W> {
    /// `size` vertices, no edges.
    #[must_use]
    pub fn new(size: usize) -> Self {
        Self {
            size,
            weights: vec![W::ZERO; size * size],
        }
    }

    /// The number of vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.size
    }

    /// Sets the weight of the edge `u`–`v` (zero removes it).
    pub fn set(&mut self, u: usize, v: usize, weight: W) {
        self.weights[u * self.size + v] = weight;
        self.weights[v * self.size + u] = weight;
    }

    /// The weight of the edge `u`–`v`.
    #[must_use]
    pub fn get(&self, u: usize, v: usize) -> W {
        self.weights[u * self.size + v]
    }

    /// A matching of maximum total weight: for each vertex its mate, or itself when unmatched.
    #[must_use]
    pub fn maximum_matching(&self) -> Vec<usize> {
        let n = self.size;
        let mut mate: Vec<usize> = (0..n).collect();
        // Each vertex's number of edges and one of its neighbours.
        let mut degree = vec![0usize; n];
        let mut neighbour = vec![NONE; n];
        for u in 0..n {
            for v in u + 1..n {
                if !self.get(u, v).is_nil() {
                    degree[u] += 1;
                    degree[v] += 1;
                    neighbour[u] = v;
                    neighbour[v] = u;
                }
            }
        }
        // Two vertices joined only to each other are matched outright (pairs already settled);
        // the blossom algorithm runs on the rest.
        let mut active = Vec::new();
        for v in 0..n {
            let other = neighbour[v];
            if degree[v] == 1 && degree[other] == 1 && neighbour[other] == v {
                mate[v] = other;
            } else if degree[v] > 0 {
                active.push(v);
            }
        }
        let mut edges = Vec::new();
        for (a, &u) in active.iter().enumerate() {
            for (b, &v) in active.iter().enumerate().skip(a + 1) {
                let weight = self.get(u, v);
                if !weight.is_nil() {
                    edges.push((a, b, weight));
                }
            }
        }
        let solved = Solver::new(active.len(), edges).solve();
        for (a, &b) in solved.iter().enumerate() {
            if b != NONE {
                mate[active[a]] = active[b];
            }
        }
        mate
    }
}

const NONE: usize = usize::MAX;

/// Labels of top-level blossoms.
const FREE: u8 = 0;
const OUTER: u8 = 1;
const INNER: u8 = 2;
/// A temporary mark while scanning for a common base.
const MARKED: u8 = 5;

/// One end of an edge as seen from the other: what the search loop reads, side by side.
#[derive(Debug, Clone, Copy)]
struct Neighbour<W> {
    /// The endpoint (`2k` or `2k + 1` for edge `k`).
    end: u32,
    /// Its vertex.
    vertex: u32,
    /// Four times the edge's weight.
    quadrupled: W,
}

/// The state of one run of the blossom algorithm. Vertices are `0..n`, blossoms `n..2n`;
/// an edge `k` has endpoints `2k` and `2k + 1`.
struct Solver<W> {
    n: usize,
    edges: Vec<(usize, usize, W)>,
    endpoint: Vec<usize>,
    /// The neighbours of vertex `v`: `neighbours[first[v]..first[v + 1]]`, by edge.
    first: Vec<usize>,
    neighbours: Vec<Neighbour<W>>,
    mate: Vec<usize>,
    label: Vec<u8>,
    labelend: Vec<usize>,
    inblossom: Vec<usize>,
    blossomparent: Vec<usize>,
    blossomchilds: Vec<Vec<usize>>,
    blossombase: Vec<usize>,
    blossomendps: Vec<Vec<usize>>,
    bestedge: Vec<usize>,
    /// The slack of `bestedge` as of dual update `bestepoch` (recomputed once it is older).
    bestslack: Vec<W>,
    bestepoch: Vec<u64>,
    /// The number of dual updates so far.
    epoch: u64,
    blossombestedges: Vec<Option<Vec<usize>>>,
    unusedblossoms: Vec<usize>,
    dualvar: Vec<W>,
    allowedge: Vec<bool>,
    queue: Vec<usize>,
    /// Room reused for the vertices of a blossom.
    leafbuffer: Vec<usize>,
    /// Room reused for the path of a blossom search.
    pathbuffer: Vec<usize>,
    /// While a blossom is made, its best edge to each outer blossom (all `NONE` otherwise).
    bestedgeto: Vec<usize>,
    /// The slacks of `bestedgeto`.
    bestslackto: Vec<W>,
}

impl<W: Weight> Solver<W> {
    /// The solver for `n` vertices and the edges `(i, j, weight)`.
    fn new(n: usize, mut edges: Vec<(usize, usize, W)>) -> Self {
        // The duals start at twice the largest weight (weights are doubled so that the duals
        // stay integers); an edge keeps four times its weight, what its slack subtracts.
        let maxweight = edges.iter().map(|edge| edge.2).max().unwrap_or(W::ZERO);
        let maxweight = maxweight.plus(maxweight);
        for edge in &mut edges {
            let doubled = edge.2.plus(edge.2);
            edge.2 = doubled.plus(doubled);
        }
        let mut endpoint = Vec::with_capacity(2 * edges.len());
        let mut first = vec![0; n + 1];
        for &(i, j, _) in &edges {
            first[i + 1] += 1;
            first[j + 1] += 1;
        }
        for v in 0..n {
            first[v + 1] += first[v];
        }
        let mut filled = first.clone();
        let empty = Neighbour {
            end: 0,
            vertex: 0,
            quadrupled: W::ZERO,
        };
        let mut neighbours = vec![empty; 2 * edges.len()];
        for (k, &(i, j, quadrupled)) in edges.iter().enumerate() {
            endpoint.push(i);
            endpoint.push(j);
            let index = u32::try_from(2 * k).expect("fewer than 2^31 edges");
            neighbours[filled[i]] = Neighbour {
                end: index + 1,
                vertex: j as u32,
                quadrupled,
            };
            filled[i] += 1;
            neighbours[filled[j]] = Neighbour {
                end: index,
                vertex: i as u32,
                quadrupled,
            };
            filled[j] += 1;
        }
        let mut dualvar = vec![maxweight; n];
        dualvar.resize(2 * n, W::ZERO);
        let count = edges.len();
        Self {
            n,
            edges,
            endpoint,
            first,
            neighbours,
            mate: vec![NONE; n],
            label: vec![FREE; 2 * n],
            labelend: vec![NONE; 2 * n],
            inblossom: (0..n).collect(),
            blossomparent: vec![NONE; 2 * n],
            blossomchilds: vec![Vec::new(); 2 * n],
            blossombase: (0..n).chain(std::iter::repeat_n(NONE, n)).collect(),
            blossomendps: vec![Vec::new(); 2 * n],
            bestedge: vec![NONE; 2 * n],
            bestslack: vec![W::ZERO; 2 * n],
            bestepoch: vec![0; 2 * n],
            epoch: 0,
            blossombestedges: vec![None; 2 * n],
            unusedblossoms: (n..2 * n).collect(),
            dualvar,
            allowedge: vec![false; count],
            queue: Vec::new(),
            leafbuffer: Vec::new(),
            pathbuffer: Vec::new(),
            bestedgeto: vec![NONE; 2 * n],
            bestslackto: vec![W::ZERO; 2 * n],
        }
    }

    /// The slack of edge `k` (its endpoints in different top-level blossoms).
    fn slack(&self, k: usize) -> W {
        let (i, j, quadrupled) = self.edges[k];
        self.dualvar[i].plus(self.dualvar[j]).minus(quadrupled)
    }

    /// Makes `k`, whose slack is `slack`, the best edge of `b`.
    fn set_bestedge(&mut self, b: usize, k: usize, slack: W) {
        self.bestedge[b] = k;
        self.bestslack[b] = slack;
        self.bestepoch[b] = self.epoch;
    }

    /// The slack of the best edge of `b` (which has one).
    fn best_slack(&mut self, b: usize) -> W {
        if self.bestepoch[b] != self.epoch {
            self.bestslack[b] = self.slack(self.bestedge[b]);
            self.bestepoch[b] = self.epoch;
        }
        self.bestslack[b]
    }

    fn leaves(&self, b: usize, out: &mut Vec<usize>) {
        if b < self.n {
            out.push(b);
        } else {
            for &child in &self.blossomchilds[b] {
                self.leaves(child, out);
            }
        }
    }

    /// The vertices of `b`, in the reused room (to be handed back to `leafbuffer`).
    fn blossom_leaves(&mut self, b: usize) -> Vec<usize> {
        let mut out = std::mem::take(&mut self.leafbuffer);
        out.clear();
        self.leaves(b, &mut out);
        out
    }

    fn assign_label(&mut self, w: usize, t: u8, p: usize) {
        let b = self.inblossom[w];
        self.label[w] = t;
        self.label[b] = t;
        self.labelend[w] = p;
        self.labelend[b] = p;
        self.bestedge[w] = NONE;
        self.bestedge[b] = NONE;
        if t == OUTER {
            let mut queue = std::mem::take(&mut self.queue);
            self.leaves(b, &mut queue);
            self.queue = queue;
        } else {
            let base = self.blossombase[b];
            let mate = self.mate[base];
            self.assign_label(self.endpoint[mate], OUTER, mate ^ 1);
        }
    }

    /// Traces back from `v` and `w` to find a common base (a new blossom) or none (an
    /// augmenting path).
    fn scan_blossom(&mut self, mut v: usize, mut w: usize) -> usize {
        let mut path = std::mem::take(&mut self.pathbuffer);
        path.clear();
        let mut base = NONE;
        while v != NONE || w != NONE {
            let mut b = self.inblossom[v];
            if self.label[b] & 4 != 0 {
                base = self.blossombase[b];
                break;
            }
            path.push(b);
            self.label[b] = MARKED;
            if self.labelend[b] == NONE {
                v = NONE;
            } else {
                v = self.endpoint[self.labelend[b]];
                b = self.inblossom[v];
                v = self.endpoint[self.labelend[b]];
            }
            if w != NONE {
                std::mem::swap(&mut v, &mut w);
            }
        }
        for &b in &path {
            self.label[b] = OUTER;
        }
        self.pathbuffer = path;
        base
    }

    fn add_blossom(&mut self, base: usize, k: usize) {
        let (mut v, mut w, _) = self.edges[k];
        let bb = self.inblossom[base];
        let mut bv = self.inblossom[v];
        let mut bw = self.inblossom[w];
        let b = self
            .unusedblossoms
            .pop()
            .expect("at most n blossoms exist at once");
        self.blossombase[b] = base;
        self.blossomparent[b] = NONE;
        self.blossomparent[bb] = b;
        // The lists of an expanded blossom are empty but keep their room.
        let mut path = std::mem::take(&mut self.blossomchilds[b]);
        let mut endps = std::mem::take(&mut self.blossomendps[b]);
        path.clear();
        endps.clear();
        while bv != bb {
            self.blossomparent[bv] = b;
            path.push(bv);
            endps.push(self.labelend[bv]);
            v = self.endpoint[self.labelend[bv]];
            bv = self.inblossom[v];
        }
        path.push(bb);
        path.reverse();
        endps.reverse();
        endps.push(2 * k);
        while bw != bb {
            self.blossomparent[bw] = b;
            path.push(bw);
            endps.push(self.labelend[bw] ^ 1);
            w = self.endpoint[self.labelend[bw]];
            bw = self.inblossom[w];
        }
        self.label[b] = OUTER;
        self.labelend[b] = self.labelend[bb];
        self.dualvar[b] = W::ZERO;
        self.blossomchilds[b] = path;
        self.blossomendps[b] = endps;
        let leaves = self.blossom_leaves(b);
        for &v in &leaves {
            if self.label[self.inblossom[v]] == INNER {
                self.queue.push(v);
            }
            self.inblossom[v] = b;
        }
        self.leafbuffer = leaves;
        let mut bestedgeto = std::mem::take(&mut self.bestedgeto);
        let mut bestslackto = std::mem::take(&mut self.bestslackto);
        let mut spare = None;
        for child in 0..self.blossomchilds[b].len() {
            let bv = self.blossomchilds[b][child];
            if let Some(list) = self.blossombestedges[bv].take() {
                for &k in &list {
                    self.best_edge_to(b, k, &mut bestedgeto, &mut bestslackto);
                }
                spare.get_or_insert(list);
            } else {
                let leaves = self.blossom_leaves(bv);
                for &v in &leaves {
                    for index in self.first[v]..self.first[v + 1] {
                        let k = self.neighbours[index].end as usize / 2;
                        self.best_edge_to(b, k, &mut bestedgeto, &mut bestslackto);
                    }
                }
                self.leafbuffer = leaves;
            }
            self.bestedge[bv] = NONE;
        }
        let mut best: Vec<usize> = spare.unwrap_or_default();
        best.clear();
        self.bestedge[b] = NONE;
        for (k, &kslack) in bestedgeto.iter_mut().zip(&bestslackto) {
            if *k != NONE {
                best.push(*k);
                if self.bestedge[b] == NONE || kslack < self.bestslack[b] {
                    self.set_bestedge(b, *k, kslack);
                }
                *k = NONE;
            }
        }
        self.bestedgeto = bestedgeto;
        self.bestslackto = bestslackto;
        self.blossombestedges[b] = Some(best);
    }

    /// Keeps edge `k` as the best edge from the new blossom `b` to the outer blossom at its
    /// other end, when it has the least slack so far (the first of equals).
    fn best_edge_to(&self, b: usize, k: usize, bestedgeto: &mut [usize], bestslackto: &mut [W]) {
        let (i, j, _) = self.edges[k];
        let j = if self.inblossom[j] == b { i } else { j };
        let bj = self.inblossom[j];
        if bj != b && self.label[bj] == OUTER {
            let kslack = self.slack(k);
            if bestedgeto[bj] == NONE || kslack < bestslackto[bj] {
                bestedgeto[bj] = k;
                bestslackto[bj] = kslack;
            }
        }
    }

    fn expand_blossom(&mut self, b: usize, endstage: bool) {
        // Nothing reads the lists of `b` once its vertices belong to its children.
        let mut childs = std::mem::take(&mut self.blossomchilds[b]);
        let mut endps = std::mem::take(&mut self.blossomendps[b]);
        for &s in &childs {
            self.blossomparent[s] = NONE;
            if s < self.n {
                self.inblossom[s] = s;
            } else if endstage && self.dualvar[s].is_nil() {
                self.expand_blossom(s, endstage);
            } else {
                let leaves = self.blossom_leaves(s);
                for &v in &leaves {
                    self.inblossom[v] = s;
                }
                self.leafbuffer = leaves;
            }
        }
        if !endstage && self.label[b] == INNER {
            let len = childs.len() as isize;
            let at = |j: isize| -> usize { childs[j.rem_euclid(len) as usize] };
            let endp = |j: isize| -> usize { endps[j.rem_euclid(len) as usize] };
            let entrychild = self.inblossom[self.endpoint[self.labelend[b] ^ 1]];
            let mut j = childs
                .iter()
                .position(|&child| child == entrychild)
                .expect("the entry child is a child") as isize;
            let (jstep, endptrick): (isize, usize) = if j & 1 == 1 {
                j -= len;
                (1, 0)
            } else {
                (-1, 1)
            };
            let mut p = self.labelend[b];
            while j != 0 {
                let q = self.endpoint[p ^ 1];
                self.label[q] = FREE;
                let r = self.endpoint[endp(j - endptrick as isize) ^ endptrick ^ 1];
                self.label[r] = FREE;
                self.assign_label(q, INNER, p);
                self.allowedge[endp(j - endptrick as isize) / 2] = true;
                j += jstep;
                p = endp(j - endptrick as isize) ^ endptrick;
                self.allowedge[p / 2] = true;
                j += jstep;
            }
            let bv = at(j);
            let q = self.endpoint[p ^ 1];
            self.label[q] = INNER;
            self.label[bv] = INNER;
            self.labelend[q] = p;
            self.labelend[bv] = p;
            self.bestedge[bv] = NONE;
            j += jstep;
            while at(j) != entrychild {
                let bv = at(j);
                if self.label[bv] == OUTER {
                    j += jstep;
                    continue;
                }
                let leaves = self.blossom_leaves(bv);
                let labelled = leaves.iter().copied().find(|&v| self.label[v] != FREE);
                self.leafbuffer = leaves;
                if let Some(v) = labelled {
                    self.label[v] = FREE;
                    let m = self.endpoint[self.mate[self.blossombase[bv]]];
                    self.label[m] = FREE;
                    self.assign_label(v, INNER, self.labelend[v]);
                }
                j += jstep;
            }
        }
        self.label[b] = FREE;
        self.labelend[b] = NONE;
        childs.clear();
        endps.clear();
        self.blossomchilds[b] = childs;
        self.blossomendps[b] = endps;
        self.blossombase[b] = NONE;
        self.blossombestedges[b] = None;
        self.bestedge[b] = NONE;
        self.unusedblossoms.push(b);
    }

    fn augment_blossom(&mut self, b: usize, v: usize) {
        let mut t = v;
        while self.blossomparent[t] != b {
            t = self.blossomparent[t];
        }
        if t >= self.n {
            self.augment_blossom(t, v);
        }
        let len = self.blossomchilds[b].len() as isize;
        let i = self.blossomchilds[b]
            .iter()
            .position(|&child| child == t)
            .expect("t is a child of b");
        let mut j = i as isize;
        let (jstep, endptrick): (isize, usize) = if i & 1 == 1 {
            j -= len;
            (1, 0)
        } else {
            (-1, 1)
        };
        while j != 0 {
            j += jstep;
            let t = self.blossomchilds[b][j.rem_euclid(len) as usize];
            let p =
                self.blossomendps[b][(j - endptrick as isize).rem_euclid(len) as usize] ^ endptrick;
            if t >= self.n {
                self.augment_blossom(t, self.endpoint[p]);
            }
            j += jstep;
            let t = self.blossomchilds[b][j.rem_euclid(len) as usize];
            if t >= self.n {
                self.augment_blossom(t, self.endpoint[p ^ 1]);
            }
            self.mate[self.endpoint[p]] = p ^ 1;
            self.mate[self.endpoint[p ^ 1]] = p;
        }
        self.blossomchilds[b].rotate_left(i);
        self.blossomendps[b].rotate_left(i);
        self.blossombase[b] = self.blossombase[self.blossomchilds[b][0]];
    }

    fn augment_matching(&mut self, k: usize) {
        let (v, w, _) = self.edges[k];
        for (mut s, mut p) in [(v, 2 * k + 1), (w, 2 * k)] {
            loop {
                let bs = self.inblossom[s];
                if bs >= self.n {
                    self.augment_blossom(bs, s);
                }
                self.mate[s] = p;
                if self.labelend[bs] == NONE {
                    break;
                }
                let t = self.endpoint[self.labelend[bs]];
                let bt = self.inblossom[t];
                s = self.endpoint[self.labelend[bt]];
                let j = self.endpoint[self.labelend[bt] ^ 1];
                if bt >= self.n {
                    self.augment_blossom(bt, j);
                }
                self.mate[j] = self.labelend[bt];
                p = self.labelend[bt] ^ 1;
            }
        }
    }

    fn solve(mut self) -> Vec<usize> {
        let n = self.n;
        for _ in 0..n {
            self.label.fill(FREE);
            self.bestedge.fill(NONE);
            for list in &mut self.blossombestedges[n..] {
                *list = None;
            }
            self.allowedge.fill(false);
            self.queue.clear();
            for v in 0..n {
                if self.mate[v] == NONE && self.label[self.inblossom[v]] == FREE {
                    self.assign_label(v, OUTER, NONE);
                }
            }
            let mut augmented = false;
            loop {
                while !augmented {
                    let Some(v) = self.queue.pop() else { break };
                    // No dual changes while the queue is scanned.
                    let dual = self.dualvar[v];
                    for index in self.first[v]..self.first[v + 1] {
                        let neighbour = self.neighbours[index];
                        let p = neighbour.end as usize;
                        let k = p / 2;
                        let w = neighbour.vertex as usize;
                        if self.inblossom[v] == self.inblossom[w] {
                            continue;
                        }
                        let mut kslack = W::ZERO;
                        if !self.allowedge[k] {
                            kslack = dual.plus(self.dualvar[w]).minus(neighbour.quadrupled);
                            if kslack.is_nil() {
                                self.allowedge[k] = true;
                            }
                        }
                        if self.allowedge[k] {
                            if self.label[self.inblossom[w]] == FREE {
                                self.assign_label(w, INNER, p ^ 1);
                            } else if self.label[self.inblossom[w]] == OUTER {
                                let base = self.scan_blossom(v, w);
                                if base == NONE {
                                    self.augment_matching(k);
                                    augmented = true;
                                    break;
                                }
                                self.add_blossom(base, k);
                            } else if self.label[w] == FREE {
                                self.label[w] = INNER;
                                self.labelend[w] = p ^ 1;
                            }
                        } else if self.label[self.inblossom[w]] == OUTER {
                            let b = self.inblossom[v];
                            if self.bestedge[b] == NONE || kslack < self.best_slack(b) {
                                self.set_bestedge(b, k, kslack);
                            }
                        } else if self.label[w] == FREE
                            && (self.bestedge[w] == NONE || kslack < self.best_slack(w))
                        {
                            self.set_bestedge(w, k, kslack);
                        }
                    }
                }
                if augmented {
                    break;
                }
                // Dual adjustment: the largest step that keeps the duals feasible.
                let mut deltatype = 1;
                let mut delta = *self.dualvar[..n].iter().min().expect("n > 0");
                let mut deltaedge = NONE;
                let mut deltablossom = NONE;
                for v in 0..n {
                    if self.label[self.inblossom[v]] == FREE && self.bestedge[v] != NONE {
                        let d = self.best_slack(v);
                        if d < delta {
                            delta = d;
                            deltatype = 2;
                            deltaedge = self.bestedge[v];
                        }
                    }
                }
                for b in 0..2 * n {
                    if self.blossomparent[b] == NONE
                        && self.label[b] == OUTER
                        && self.bestedge[b] != NONE
                    {
                        let d = self.best_slack(b).halved();
                        if d < delta {
                            delta = d;
                            deltatype = 3;
                            deltaedge = self.bestedge[b];
                        }
                    }
                }
                for b in n..2 * n {
                    if self.blossombase[b] != NONE
                        && self.blossomparent[b] == NONE
                        && self.label[b] == INNER
                        && self.dualvar[b] < delta
                    {
                        delta = self.dualvar[b];
                        deltatype = 4;
                        deltablossom = b;
                    }
                }
                self.epoch += 1;
                for v in 0..n {
                    match self.label[self.inblossom[v]] {
                        OUTER => self.dualvar[v] = self.dualvar[v].minus(delta),
                        INNER => self.dualvar[v] = self.dualvar[v].plus(delta),
                        _ => {}
                    }
                }
                for b in n..2 * n {
                    if self.blossombase[b] != NONE && self.blossomparent[b] == NONE {
                        match self.label[b] {
                            OUTER => self.dualvar[b] = self.dualvar[b].plus(delta),
                            INNER => self.dualvar[b] = self.dualvar[b].minus(delta),
                            _ => {}
                        }
                    }
                }
                match deltatype {
                    1 => break,
                    2 => {
                        self.allowedge[deltaedge] = true;
                        let (mut i, j, _) = self.edges[deltaedge];
                        if self.label[self.inblossom[i]] == FREE {
                            i = j;
                        }
                        self.queue.push(i);
                    }
                    3 => {
                        self.allowedge[deltaedge] = true;
                        let (i, _, _) = self.edges[deltaedge];
                        self.queue.push(i);
                    }
                    _ => self.expand_blossom(deltablossom, false),
                }
            }
            if !augmented {
                break;
            }
            for b in n..2 * n {
                if self.blossomparent[b] == NONE
                    && self.blossombase[b] != NONE
                    && self.label[b] == OUTER
                    && self.dualvar[b].is_nil()
                {
                    self.expand_blossom(b, true);
                }
            }
        }
        self.mate
            .iter()
            .map(|&p| if p == NONE { NONE } else { self.endpoint[p] })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Graph;
    use crate::pairing::wide::Wide;

    type W = Wide<1>;

    /// The largest total weight of any matching, by trying them all.
    fn best_total(graph: &Graph<W>, free: u32) -> u64 {
        let Some(u) = (0..graph.len()).find(|&v| free & (1 << v) != 0) else {
            return 0;
        };
        let rest = free & !(1 << u);
        let mut best = best_total(graph, rest);
        for v in 0..graph.len() {
            let weight = graph.get(u, v);
            if rest & (1 << v) != 0 && !weight.is_zero() {
                let total = value(weight) + best_total(graph, rest & !(1 << v));
                best = best.max(total);
            }
        }
        best
    }

    fn value(weight: W) -> u64 {
        let mut value = 0;
        for bit in 0..64 {
            if weight.or(W::bit(bit)) == weight {
                value |= 1 << bit;
            }
        }
        value
    }

    fn total(graph: &Graph<W>, mate: &[usize]) -> u64 {
        let mut sum = 0;
        for (v, &m) in mate.iter().enumerate() {
            assert_eq!(mate[m], v, "the matching is symmetric");
            if m > v {
                assert!(!graph.get(v, m).is_zero(), "no absent edge is matched");
                sum += value(graph.get(v, m));
            }
        }
        sum
    }

    #[test]
    fn finds_a_maximum_weight_matching_on_random_graphs() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..400 {
            let size = 1 + (round % 10) as usize;
            let mut graph = Graph::new(size);
            for u in 0..size {
                for v in u + 1..size {
                    // Sparse or dense, with many equal weights.
                    if next() % 3 != 0 {
                        graph.set(u, v, W::from_u64(next() % 8 + 1));
                    }
                }
            }
            let mate = graph.maximum_matching();
            assert_eq!(
                total(&graph, &mate),
                best_total(&graph, (1 << size) - 1),
                "{graph:?}"
            );
        }
    }

    #[test]
    fn a_settled_pair_stays_matched_and_heavy_edges_win() {
        let mut graph = Graph::new(4);
        graph.set(0, 1, W::from_u64(5));
        graph.set(1, 2, W::from_u64(3));
        graph.set(2, 3, W::from_u64(3));
        graph.set(0, 3, W::from_u64(1));
        assert_eq!(graph.maximum_matching(), [1, 0, 3, 2]);
        // A lone heavy edge beats two light ones; the others stay unmatched.
        graph.set(1, 2, W::from_u64(20));
        assert_eq!(graph.maximum_matching(), [3, 2, 1, 0]);
        graph.set(0, 3, W::ZERO);
        assert_eq!(graph.maximum_matching(), [0, 2, 1, 3]);
    }
}
