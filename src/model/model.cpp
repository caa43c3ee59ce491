#include "levelkit/model/model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace lk::model {

// --- math ----------------------------------------------------------------------------------

namespace {

struct Q {
    double x, y, z, w;
};
Q dq(const Quat& q) {
    return {q.x, q.y, q.z, q.w};
}
Quat fq(const Q& q) {
    return {static_cast<float>(q.x), static_cast<float>(q.y), static_cast<float>(q.z),
            static_cast<float>(q.w)};
}

void quat_matrix(const Q& q, double m[3][3]) {
    const double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    const double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    const double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    m[0][0] = 1 - 2 * (yy + zz);
    m[0][1] = 2 * (xy - wz);
    m[0][2] = 2 * (xz + wy);
    m[1][0] = 2 * (xy + wz);
    m[1][1] = 1 - 2 * (xx + zz);
    m[1][2] = 2 * (yz - wx);
    m[2][0] = 2 * (xz - wy);
    m[2][1] = 2 * (yz + wx);
    m[2][2] = 1 - 2 * (xx + yy);
}

}  // namespace

Affine Affine::from(const Transform& t) {
    Affine a;
    Q q = dq(normalize(t.rotation));
    quat_matrix(q, a.m);
    const double s[3] = {t.scale.x, t.scale.y, t.scale.z};
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) a.m[r][c] *= s[c];
    }
    a.t[0] = t.translation.x;
    a.t[1] = t.translation.y;
    a.t[2] = t.translation.z;
    return a;
}

Affine Affine::operator*(const Affine& o) const {
    Affine r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r.m[i][j] = m[i][0] * o.m[0][j] + m[i][1] * o.m[1][j] + m[i][2] * o.m[2][j];
        }
        r.t[i] = m[i][0] * o.t[0] + m[i][1] * o.t[1] + m[i][2] * o.t[2] + t[i];
    }
    return r;
}

Vec3f Affine::point(const Vec3f& p) const {
    Vec3f v = vector(p);
    return {static_cast<float>(v.x + t[0]), static_cast<float>(v.y + t[1]),
            static_cast<float>(v.z + t[2])};
}

Vec3f Affine::vector(const Vec3f& p) const {
    const double x = p.x, y = p.y, z = p.z;
    return {static_cast<float>(m[0][0] * x + m[0][1] * y + m[0][2] * z),
            static_cast<float>(m[1][0] * x + m[1][1] * y + m[1][2] * z),
            static_cast<float>(m[2][0] * x + m[2][1] * y + m[2][2] * z)};
}

Affine Affine::inverse() const {
    const double a = m[0][0], b = m[0][1], c = m[0][2];
    const double d = m[1][0], e = m[1][1], f = m[1][2];
    const double g = m[2][0], h = m[2][1], i = m[2][2];
    const double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    const double det = a * A + b * B + c * C;
    Affine r;
    if (det == 0) return r;
    const double s = 1 / det;
    r.m[0][0] = A * s;
    r.m[0][1] = -(b * i - c * h) * s;
    r.m[0][2] = (b * f - c * e) * s;
    r.m[1][0] = B * s;
    r.m[1][1] = (a * i - c * g) * s;
    r.m[1][2] = -(a * f - c * d) * s;
    r.m[2][0] = C * s;
    r.m[2][1] = -(a * h - b * g) * s;
    r.m[2][2] = (a * e - b * d) * s;
    for (int k = 0; k < 3; ++k) {
        r.t[k] = -(r.m[k][0] * t[0] + r.m[k][1] * t[1] + r.m[k][2] * t[2]);
    }
    return r;
}

Vec3f Affine::normal(const Vec3f& n) const {
    const Affine inv = inverse();
    // Inverse transpose: rows of the inverse are columns here.
    const double x = inv.m[0][0] * n.x + inv.m[1][0] * n.y + inv.m[2][0] * n.z;
    const double y = inv.m[0][1] * n.x + inv.m[1][1] * n.y + inv.m[2][1] * n.z;
    const double z = inv.m[0][2] * n.x + inv.m[1][2] * n.y + inv.m[2][2] * n.z;
    const double len = std::sqrt(x * x + y * y + z * z);
    if (len == 0) return n;
    // Keep the input's length (normals in files are not always unit length).
    const double in = std::sqrt(double(n.x) * n.x + double(n.y) * n.y + double(n.z) * n.z);
    const double s = in / len;
    return {static_cast<float>(x * s), static_cast<float>(y * s), static_cast<float>(z * s)};
}

Quat normalize(const Quat& q) {
    const Q d = dq(q);
    const double len = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z + d.w * d.w);
    if (len == 0 || !std::isfinite(len)) return {};
    return fq({d.x / len, d.y / len, d.z / len, d.w / len});
}

Quat multiply(const Quat& qa, const Quat& qb) {
    const Q a = dq(qa), b = dq(qb);
    return fq({a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
               a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
               a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
               a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z});
}

Vec3f rotate(const Quat& q, const Vec3f& v) {
    double m[3][3];
    quat_matrix(dq(q), m);
    return {static_cast<float>(m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z),
            static_cast<float>(m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z),
            static_cast<float>(m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z)};
}

Quat slerp(const Quat& qa, const Quat& qb, float tf) {
    Q a = dq(qa), b = dq(qb);
    const double t = tf;
    double cosom = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    if (cosom < 0) {
        cosom = -cosom;
        b = {-b.x, -b.y, -b.z, -b.w};
    }
    double s0 = 1 - t, s1 = t;
    if (cosom < 0.9999) {
        const double omega = std::acos(std::min(cosom, 1.0));
        const double sinom = std::sin(omega);
        s0 = std::sin((1 - t) * omega) / sinom;
        s1 = std::sin(t * omega) / sinom;
    }
    return normalize(
        fq({s0 * a.x + s1 * b.x, s0 * a.y + s1 * b.y, s0 * a.z + s1 * b.z, s0 * a.w + s1 * b.w}));
}

double angle_between(const Quat& qa, const Quat& qb) {
    // Angle of the relative rotation conj(a) * b; atan2 stays exact near 0, where acos of a dot
    // product near 1 loses half its digits.
    const Q a = dq(qa), b = dq(qb);
    const double w = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
    const double x = a.w * b.x - a.x * b.w - a.y * b.z + a.z * b.y;
    const double y = a.w * b.y + a.x * b.z - a.y * b.w - a.z * b.x;
    const double z = a.w * b.z - a.x * b.y + a.y * b.x - a.z * b.w;
    const double v = std::sqrt(x * x + y * y + z * z);
    return 2 * std::atan2(v, std::abs(w));
}

Quat from_euler_xyz(const Vec3f& r) {
    const double cx = std::cos(r.x * 0.5), sx = std::sin(r.x * 0.5);
    const double cy = std::cos(r.y * 0.5), sy = std::sin(r.y * 0.5);
    const double cz = std::cos(r.z * 0.5), sz = std::sin(r.z * 0.5);
    // q = qz * qy * qx
    return fq({sx * cy * cz - cx * sy * sz, cx * sy * cz + sx * cy * sz,
               cx * cy * sz - sx * sy * cz, cx * cy * cz + sx * sy * sz});
}

Vec3f to_euler_xyz(const Quat& q) {
    double m[3][3];
    quat_matrix(dq(normalize(q)), m);
    // R = Rz Ry Rx: m[2][0] = -sin(y).
    const double sy = std::clamp(-m[2][0], -1.0, 1.0);
    const double y = std::asin(sy);
    double x, z;
    if (std::abs(sy) < 0.9999995) {
        x = std::atan2(m[2][1], m[2][2]);
        z = std::atan2(m[1][0], m[0][0]);
    } else {  // gimbal lock: put the whole rotation about the shared axis into x
        x = std::atan2(-m[1][2], m[1][1]);
        z = 0;
    }
    return {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)};
}

// --- mesh, flex, clip helpers ---------------------------------------------------------------

std::size_t Mesh::polygon_count() const {
    std::size_t n = 0;
    for (const FaceSet& f : face_sets) n += f.sizes.size();
    return n;
}

std::vector<std::string> corrective_drivers(const Flex& flex, std::string_view name) {
    auto is_raw = [&](std::string_view s) {
        for (const FlexController& c : flex.controllers) {
            for (const std::string& r : c.raw_controls) {
                if (r == s) return true;
            }
        }
        return false;
    };
    if (name.empty() || is_raw(name)) return {};
    // ModelDoc joins with "__", studiomdl with "_", old Valve exports with "-".
    for (std::string_view sep : {"__", "_", "-"}) {
        std::vector<std::string> parts;
        std::size_t start = 0;
        bool ok = true;
        while (true) {
            const std::size_t at = name.find(sep, start);
            const std::string_view part = name.substr(
                start, at == std::string_view::npos ? std::string_view::npos : at - start);
            if (!is_raw(part)) {
                ok = false;
                break;
            }
            parts.emplace_back(part);
            if (at == std::string_view::npos) break;
            start = at + sep.size();
        }
        if (ok && parts.size() >= 2) return parts;
    }
    return {};
}

std::uint32_t Clip::frame_count() const {
    const double f = std::round(duration * frame_rate);
    if (!(f >= 0) || f > 1e7) return 1;
    return static_cast<std::uint32_t>(f) + 1;
}

std::optional<Diagnostic> dense_sampling_limit(const Clip& clip, std::size_t nodes,
                                               std::uint64_t limit) {
    // A caller may ask for less, never for more (frame_count() stops counting at 10^7 frames).
    limit = std::min(limit, kMaxDenseNodeFrames);
    // From the duration, not frame_count().
    const double f = std::round(clip.duration * clip.frame_rate) + 1;
    if (nodes == 0 || !(f > double(limit / nodes))) return std::nullopt;
    const auto frames = static_cast<std::uint64_t>(std::min(f, 1e18));
    return Diagnostic::error(
        "model.clip-too-long",
        fmt::format("clip '{}' has {} frames ({} s at {} fps) for {} nodes: {} node-frames, more "
                    "than the {} a format that stores every frame is written with",
                    clip.name, frames, clip.duration, clip.frame_rate, nodes, frames * nodes,
                    limit));
}

namespace {

template <class T, class Lerp>
T sample_keys(const Keys<T>& k, const T& rest, double time, double snap, Lerp lerp) {
    const std::size_t n = std::min(k.times.size(), k.values.size());
    if (n == 0) return rest;
    const auto it = std::lower_bound(k.times.begin(), k.times.begin() + n, time - snap);
    const std::size_t i = static_cast<std::size_t>(it - k.times.begin());
    if (i < n && std::abs(k.times[i] - time) <= snap) return k.values[i];
    if (i == 0) return k.values[0];
    if (i >= n) return k.values[n - 1];
    const double t0 = k.times[i - 1], t1 = k.times[i];
    const double f = t1 > t0 ? (time - t0) / (t1 - t0) : 0.0;
    return lerp(k.values[i - 1], k.values[i], static_cast<float>(std::clamp(f, 0.0, 1.0)));
}

Vec3f lerp3(const Vec3f& a, const Vec3f& b, float t) {
    return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t};
}

}  // namespace

Transform sample(const NodeTrack* track, const Transform& rest, double time, double snap) {
    if (!track) return rest;
    Transform t;
    t.translation = sample_keys(track->translation, rest.translation, time, snap, lerp3);
    t.rotation = sample_keys(track->rotation, rest.rotation, time, snap, slerp);
    t.scale = sample_keys(track->scale, rest.scale, time, snap, lerp3);
    return t;
}

// --- model ---------------------------------------------------------------------------------

const std::string& Model::name() const {
    static const std::string empty;
    return nodes.empty() ? empty : nodes[0].name;
}

Model Model::with_root(std::string name) {
    Model m;
    Node root;
    root.name = std::move(name);
    root.kind = NodeKind::model;
    m.nodes.push_back(std::move(root));
    return m;
}

std::int32_t Model::find_node(std::string_view name) const {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].name == name) return static_cast<std::int32_t>(i);
    }
    return -1;
}

std::uint32_t Model::material(std::string_view name) {
    for (std::size_t i = 0; i < materials.size(); ++i) {
        if (materials[i].name == name) return static_cast<std::uint32_t>(i);
    }
    materials.push_back({std::string(name)});
    return static_cast<std::uint32_t>(materials.size() - 1);
}

bool Model::is_joint(std::uint32_t node) const {
    if (node >= nodes.size()) return false;
    if (node == 0) return root_bone;
    return nodes[node].kind == NodeKind::joint;
}

std::string root_bone_name(const Model& m) {
    const std::string& name = m.name();
    if (name == "blender_implicit" || name == "root") return name;
    bool joints = false;
    for (const Node& n : m.nodes) joints = joints || n.kind == NodeKind::joint;
    if (!joints) {
        for (const Mesh& mesh : m.meshes) {
            if (mesh.name == name) return "root";
            if (mesh.node < m.nodes.size() && m.nodes[mesh.node].name == name) return "root";
        }
        if (m.meshes.empty() && m.clips.empty()) return "root";
    }
    return "blender_implicit";
}

Transform decompose(const Affine& a) {
    Transform t;
    t.translation = {static_cast<float>(a.t[0]), static_cast<float>(a.t[1]),
                     static_cast<float>(a.t[2])};
    double m[3][3];
    double s[3];
    for (int c = 0; c < 3; ++c) {
        s[c] = std::sqrt(a.m[0][c] * a.m[0][c] + a.m[1][c] * a.m[1][c] + a.m[2][c] * a.m[2][c]);
        for (int r = 0; r < 3; ++r) m[r][c] = s[c] > 0 ? a.m[r][c] / s[c] : (r == c ? 1 : 0);
    }
    t.scale = {static_cast<float>(s[0]), static_cast<float>(s[1]), static_cast<float>(s[2])};
    // Shepperd's method: pick the largest diagonal term for stability.
    const double tr = m[0][0] + m[1][1] + m[2][2];
    Q q;
    if (tr > 0) {
        const double r = std::sqrt(1 + tr) * 2;
        q = {(m[2][1] - m[1][2]) / r, (m[0][2] - m[2][0]) / r, (m[1][0] - m[0][1]) / r, r / 4};
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        const double r = std::sqrt(1 + m[0][0] - m[1][1] - m[2][2]) * 2;
        q = {r / 4, (m[0][1] + m[1][0]) / r, (m[0][2] + m[2][0]) / r, (m[2][1] - m[1][2]) / r};
    } else if (m[1][1] > m[2][2]) {
        const double r = std::sqrt(1 + m[1][1] - m[0][0] - m[2][2]) * 2;
        q = {(m[0][1] + m[1][0]) / r, r / 4, (m[1][2] + m[2][1]) / r, (m[0][2] - m[2][0]) / r};
    } else {
        const double r = std::sqrt(1 + m[2][2] - m[0][0] - m[1][1]) * 2;
        q = {(m[0][2] + m[2][0]) / r, (m[1][2] + m[2][1]) / r, r / 4, (m[1][0] - m[0][1]) / r};
    }
    t.rotation = normalize(fq(q));
    return t;
}

std::vector<Affine> world_bind(const Model& m) {
    std::vector<Affine> out(m.nodes.size());
    for (std::size_t i = 0; i < m.nodes.size(); ++i) {
        const Affine local = Affine::from(m.nodes[i].bind);
        const std::int32_t p = m.nodes[i].parent;
        out[i] = (p >= 0 && static_cast<std::size_t>(p) < i)
                     ? out[static_cast<std::size_t>(p)] * local
                     : local;
    }
    return out;
}

// --- flatten -------------------------------------------------------------------------------

Flattened flatten(const Mesh& mesh, QuadSplit split) {
    Flattened out;
    const std::size_t corners = mesh.corner_count();
    // The index arrays that tell corners apart, in a fixed order.
    std::vector<const std::vector<std::uint32_t>*> keys{&mesh.positions.indices};
    auto add = [&](const std::vector<std::uint32_t>& idx) {
        if (idx.size() == corners && corners != 0) keys.push_back(&idx);
    };
    add(mesh.normals.indices);
    add(mesh.tangents.indices);
    for (const auto& t : mesh.texcoords) add(t.indices);
    for (const auto& c : mesh.colors) add(c.indices);
    add(mesh.balance.indices);
    add(mesh.speed.indices);
    add(mesh.wrinkle.indices);
    for (const auto& e : mesh.extra) add(e.indices);

    out.vertex_of_corner.assign(corners, 0);
    std::unordered_map<std::uint64_t, std::uint32_t> first;  // hash -> first vertex
    std::vector<std::uint32_t> next;                         // chain of vertices with a hash
    first.reserve(corners);
    auto same = [&](std::size_t a, std::size_t b) {
        for (const auto* k : keys) {
            if ((*k)[a] != (*k)[b]) return false;
        }
        return true;
    };
    for (std::size_t c = 0; c < corners; ++c) {
        std::uint64_t h = 1469598103934665603ull;
        for (const auto* k : keys) h = (h ^ (*k)[c]) * 1099511628211ull;
        auto [it, inserted] = first.try_emplace(h, static_cast<std::uint32_t>(out.corner.size()));
        std::uint32_t v = it->second;
        if (!inserted) {
            std::uint32_t found = UINT32_MAX;
            for (std::uint32_t x = v; x != UINT32_MAX; x = next[x]) {
                if (same(out.corner[x], c)) {
                    found = x;
                    break;
                }
            }
            if (found != UINT32_MAX) {
                out.vertex_of_corner[c] = found;
                continue;
            }
            v = static_cast<std::uint32_t>(out.corner.size());
            next.push_back(it->second);
            it->second = v;
        } else {
            next.push_back(UINT32_MAX);
        }
        out.corner.push_back(static_cast<std::uint32_t>(c));
        out.vertex_of_corner[c] = v;
    }

    for (const FaceSet& fs : mesh.face_sets) {
        Flattened::Part part;
        part.material = fs.material;
        std::size_t at = 0;
        for (std::uint32_t n : fs.sizes) {
            if (at + n > fs.corners.size()) break;
            std::uint32_t start = 0;
            if (n == 4 && split == QuadSplit::second) start = 1;
            if (n == 4 && split == QuadSplit::shortest) {
                auto point = [&](std::uint32_t k) -> const Vec3f& {
                    const std::uint32_t c = fs.corners[at + k];
                    static const Vec3f none{};
                    return c < corners ? mesh.positions.at(c) : none;
                };
                auto dist2 = [](const Vec3f& a, const Vec3f& b) {
                    const double x = a.x - b.x, y = a.y - b.y, z = a.z - b.z;
                    return x * x + y * y + z * z;
                };
                if (dist2(point(1), point(3)) < dist2(point(0), point(2))) start = 1;
            }
            for (std::uint32_t k = 1; n >= 3 && k + 1 < n; ++k) {
                const std::uint32_t c[3] = {fs.corners[at + start],
                                            fs.corners[at + (start + k) % n],
                                            fs.corners[at + (start + k + 1) % n]};
                if (c[0] >= corners || c[1] >= corners || c[2] >= corners) continue;
                for (std::uint32_t x : c) part.triangles.push_back(out.vertex_of_corner[x]);
            }
            at += n;
        }
        out.parts.push_back(std::move(part));
    }
    return out;
}

// --- compare -------------------------------------------------------------------------------

namespace {

class Cmp {
public:
    explicit Cmp(const Tolerance& t) : tol(t) {}
    const Tolerance& tol;
    std::optional<std::string> diff;

    bool ok() const { return !diff.has_value(); }
    void fail(const std::string& path, const std::string& what) {
        if (!diff) diff = path + ": " + what;
    }

    static bool value_free(const std::string&, float a, float b) {
        return a == b || (std::isnan(a) && std::isnan(b));
    }
    static bool near(double a, double b, double eps) {
        if (a == b) return true;
        if (std::isnan(a) && std::isnan(b)) return true;
        return std::abs(a - b) <= eps;
    }
    bool value(const std::string& p, float a, float b, double eps) {
        if (near(a, b, eps)) return true;
        fail(p, fmt::format("{} vs {}", a, b));
        return false;
    }
    bool value(const std::string& p, const Vec2f& a, const Vec2f& b, double eps) {
        if (near(a.x, b.x, eps) && near(a.y, b.y, eps)) return true;
        fail(p, fmt::format("({} {}) vs ({} {})", a.x, a.y, b.x, b.y));
        return false;
    }
    bool value(const std::string& p, const Vec3f& a, const Vec3f& b, double eps) {
        if (near(a.x, b.x, eps) && near(a.y, b.y, eps) && near(a.z, b.z, eps)) return true;
        fail(p, fmt::format("({} {} {}) vs ({} {} {})", a.x, a.y, a.z, b.x, b.y, b.z));
        return false;
    }
    bool value(const std::string& p, const Vec4f& a, const Vec4f& b, double eps) {
        if (near(a.x, b.x, eps) && near(a.y, b.y, eps) && near(a.z, b.z, eps) &&
            near(a.w, b.w, eps)) {
            return true;
        }
        fail(p,
             fmt::format("({} {} {} {}) vs ({} {} {} {})", a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w));
        return false;
    }
    bool value(const std::string& p, const Quat& a, const Quat& b, double eps) {
        if (a == b || angle_between(a, b) <= eps) return true;
        if (value_free(p, a.x, b.x) && value_free(p, a.y, b.y) && value_free(p, a.z, b.z) &&
            value_free(p, a.w, b.w)) {
            return true;  // the same numbers, NaN included
        }
        fail(p, fmt::format("rotation ({} {} {} {}) vs ({} {} {} {})", a.x, a.y, a.z, a.w, b.x, b.y,
                            b.z, b.w));
        return false;
    }
    bool value(const std::string& p, double a, double b, double eps) {
        if (near(a, b, eps)) return true;
        fail(p, fmt::format("{} vs {}", a, b));
        return false;
    }
    template <class T>
    bool eq(const std::string& p, const T& a, const T& b) {
        if (a == b) return true;
        if constexpr (std::is_same_v<T, std::string>) {
            fail(p, fmt::format("'{}' vs '{}'", a, b));
        } else if constexpr (std::is_arithmetic_v<T>) {
            fail(p, fmt::format("{} vs {}", a, b));
        } else {
            fail(p, "differ");
        }
        return false;
    }
    bool size(const std::string& p, std::size_t a, std::size_t b) {
        if (a == b) return true;
        fail(p, fmt::format("{} entries vs {}", a, b));
        return false;
    }
    template <class T>
    bool values(const std::string& p, const std::vector<T>& a, const std::vector<T>& b,
                double eps) {
        if (!size(p, a.size(), b.size())) return false;
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (!value(fmt::format("{}[{}]", p, i), a[i], b[i], eps)) return false;
        }
        return true;
    }
    template <class T>
    bool indexed(const std::string& p, const Indexed<T>& a, const Indexed<T>& b, double eps) {
        return values(p + ".values", a.values, b.values, eps) &&
               eq(p + ".indices", a.indices, b.indices);
    }
    template <class T>
    bool sparse(const std::string& p, const Sparse<T>& a, const Sparse<T>& b, double eps) {
        return eq(p + ".indices", a.indices, b.indices) &&
               values(p + ".values", a.values, b.values, eps);
    }
    template <class T>
    bool keys(const std::string& p, const Keys<T>& a, const Keys<T>& b, double eps) {
        return values(p + ".times", a.times, b.times, tol.time) &&
               values(p + ".values", a.values, b.values, eps);
    }
    void transform(const std::string& p, const Transform& a, const Transform& b) {
        value(p + ".translation", a.translation, b.translation, tol.position) &&
            value(p + ".rotation", a.rotation, b.rotation, tol.rotation) &&
            value(p + ".scale", a.scale, b.scale, tol.position);
    }
};

}  // namespace

std::optional<std::string> compare(const Model& a, const Model& b, const Tolerance& tol) {
    Cmp c(tol);
    if (!c.size("nodes", a.nodes.size(), b.nodes.size())) return c.diff;
    c.eq("root_bone", a.root_bone, b.root_bone);
    for (std::size_t i = 0; i < a.nodes.size() && c.ok(); ++i) {
        const std::string p = fmt::format("nodes[{}] '{}'", i, a.nodes[i].name);
        c.eq(p + ".name", a.nodes[i].name, b.nodes[i].name);
        c.eq(p + ".parent", a.nodes[i].parent, b.nodes[i].parent);
        c.eq(p + ".kind", static_cast<int>(a.nodes[i].kind), static_cast<int>(b.nodes[i].kind));
        c.transform(p + ".bind", a.nodes[i].bind, b.nodes[i].bind);
        c.transform(p + ".pose", a.nodes[i].pose, b.nodes[i].pose);
    }
    if (c.size("attachments", a.attachments.size(), b.attachments.size())) {
        for (std::size_t i = 0; i < a.attachments.size() && c.ok(); ++i) {
            const auto &x = a.attachments[i], &y = b.attachments[i];
            const std::string p = fmt::format("attachments[{}]", i);
            c.eq(p + ".name", x.name, y.name);
            c.eq(p + ".node", x.node, y.node);
            c.eq(p + ".rigid", x.rigid, y.rigid);
            c.eq(p + ".world_aligned", x.world_aligned, y.world_aligned);
        }
    }
    if (c.size("eyeballs", a.eyeballs.size(), b.eyeballs.size())) {
        for (std::size_t i = 0; i < a.eyeballs.size() && c.ok(); ++i) {
            const auto &x = a.eyeballs[i], &y = b.eyeballs[i];
            const std::string p = fmt::format("eyeballs[{}]", i);
            c.eq(p + ".name", x.name, y.name);
            c.eq(p + ".node", x.node, y.node);
            c.value(p + ".position", x.position, y.position, tol.position);
            c.value(p + ".radius", x.radius, y.radius, tol.position);
        }
    }
    c.eq("materials", a.materials, b.materials);
    c.eq("up_axis", static_cast<int>(a.up_axis), static_cast<int>(b.up_axis));
    if (!c.size("meshes", a.meshes.size(), b.meshes.size())) return c.diff;
    for (std::size_t i = 0; i < a.meshes.size() && c.ok(); ++i) {
        const Mesh &x = a.meshes[i], &y = b.meshes[i];
        const std::string p = fmt::format("meshes[{}] '{}'", i, x.name);
        c.eq(p + ".name", x.name, y.name);
        c.eq(p + ".node", x.node, y.node);
        c.indexed(p + "/positions", x.positions, y.positions, tol.position);
        c.indexed(p + "/normals", x.normals, y.normals, tol.normal);
        c.indexed(p + "/tangents", x.tangents, y.tangents, tol.normal);
        if (c.size(p + "/texcoords", x.texcoords.size(), y.texcoords.size())) {
            for (std::size_t k = 0; k < x.texcoords.size(); ++k) {
                c.indexed(fmt::format("{}/texcoords[{}]", p, k), x.texcoords[k], y.texcoords[k],
                          tol.texcoord);
            }
        }
        if (c.size(p + "/colors", x.colors.size(), y.colors.size())) {
            for (std::size_t k = 0; k < x.colors.size(); ++k) {
                c.indexed(fmt::format("{}/colors[{}]", p, k), x.colors[k], y.colors[k],
                          tol.texcoord);
            }
        }
        c.indexed(p + "/balance", x.balance, y.balance, tol.weight);
        c.indexed(p + "/speed", x.speed, y.speed, tol.weight);
        c.indexed(p + "/wrinkle", x.wrinkle, y.wrinkle, tol.weight);
        c.eq(p + "/skin.influences", x.skin.influences, y.skin.influences);
        {
            // The joint of an influence that weighs 0 on both sides carries nothing, and a
            // writer may have to name another joint there (DMX without a root bone has no index
            // for the model): such slots are compared as joint 0.
            auto weighed = [](const Skin& s, const Skin& other) {
                std::vector<std::uint32_t> j = s.joints;
                for (std::size_t k = 0; k < j.size(); ++k) {
                    const bool ws = k < s.weights.size() && s.weights[k] != 0;
                    const bool wo = k < other.weights.size() && other.weights[k] != 0;
                    if (!ws && !wo) j[k] = 0;
                }
                return j;
            };
            c.eq(p + "/skin.joints", weighed(x.skin, y.skin), weighed(y.skin, x.skin));
        }
        c.values(p + "/skin.weights", x.skin.weights, y.skin.weights, tol.weight);
        if (c.size(p + "/extra", x.extra.size(), y.extra.size())) {
            for (std::size_t k = 0; k < x.extra.size() && c.ok(); ++k) {
                const std::string q = fmt::format("{}/extra[{}] '{}'", p, k, x.extra[k].name);
                c.eq(q + ".name", x.extra[k].name, y.extra[k].name);
                c.eq(q + ".components", x.extra[k].components, y.extra[k].components);
                c.eq(q + ".kind", static_cast<int>(x.extra[k].kind),
                     static_cast<int>(y.extra[k].kind));
                c.values(q + ".values", x.extra[k].values, y.extra[k].values, tol.weight);
                c.eq(q + ".indices", x.extra[k].indices, y.extra[k].indices);
            }
        }
        if (c.size(p + "/face_sets", x.face_sets.size(), y.face_sets.size())) {
            for (std::size_t k = 0; k < x.face_sets.size(); ++k) {
                const std::string q = fmt::format("{}/face_sets[{}]", p, k);
                c.eq(q + ".material", x.face_sets[k].material, y.face_sets[k].material);
                c.eq(q + ".sizes", x.face_sets[k].sizes, y.face_sets[k].sizes);
                c.eq(q + ".corners", x.face_sets[k].corners, y.face_sets[k].corners);
            }
        }
        if (c.size(p + "/shapes", x.shapes.size(), y.shapes.size())) {
            for (std::size_t k = 0; k < x.shapes.size() && c.ok(); ++k) {
                const Shape &s = x.shapes[k], &t = y.shapes[k];
                const std::string q = fmt::format("{}/shapes[{}] '{}'", p, k, s.name);
                const auto ds = corrective_drivers(a.flex, s.name);
                const auto dt = corrective_drivers(b.flex, t.name);
                if (!ds.empty() || !dt.empty()) {
                    c.eq(q + ".drivers", ds, dt);
                } else {
                    c.eq(q + ".name", s.name, t.name);
                }
                c.sparse(q + ".positions", s.positions, t.positions, tol.position);
                c.sparse(q + ".normals", s.normals, t.normals, tol.normal);
                c.sparse(q + ".wrinkle", s.wrinkle, t.wrinkle, tol.weight);
                c.eq(q + ".corrected", s.corrected, t.corrected);
            }
        }
    }
    if (!c.ok()) return c.diff;
    if (c.size("flex.controllers", a.flex.controllers.size(), b.flex.controllers.size())) {
        for (std::size_t i = 0; i < a.flex.controllers.size() && c.ok(); ++i) {
            const auto &x = a.flex.controllers[i], &y = b.flex.controllers[i];
            const std::string p = fmt::format("flex.controllers[{}] '{}'", i, x.name);
            c.eq(p + ".name", x.name, y.name);
            c.eq(p + ".raw_controls", x.raw_controls, y.raw_controls);
            c.eq(p + ".stereo", x.stereo, y.stereo);
            c.eq(p + ".eyelid", x.eyelid, y.eyelid);
            c.value(p + ".min", x.min, y.min, 0);
            c.value(p + ".max", x.max, y.max, 0);
            c.value(p + ".default_value", x.default_value, y.default_value, 0);
            c.values(p + ".wrinkle_scales", x.wrinkle_scales, y.wrinkle_scales, 0);
            c.eq(p + ".eyes_up_down", x.eyes_up_down, y.eyes_up_down);
        }
    }
    c.eq("flex.domination_rules", a.flex.domination_rules, b.flex.domination_rules);
    if (!c.size("clips", a.clips.size(), b.clips.size())) return c.diff;
    for (std::size_t i = 0; i < a.clips.size() && c.ok(); ++i) {
        const Clip &x = a.clips[i], &y = b.clips[i];
        const std::string p = fmt::format("clips[{}] '{}'", i, x.name);
        c.eq(p + ".name", x.name, y.name);
        c.value(p + ".frame_rate", x.frame_rate, y.frame_rate, 1e-6);
        c.value(p + ".start", x.start, y.start, tol.time);
        c.value(p + ".duration", x.duration, y.duration, tol.time);
        if (c.size(p + ".tracks", x.tracks.size(), y.tracks.size())) {
            for (std::size_t k = 0; k < x.tracks.size() && c.ok(); ++k) {
                const std::string q = fmt::format("{}/tracks[{}]", p, k);
                c.eq(q + ".node", x.tracks[k].node, y.tracks[k].node);
                c.keys(q + ".translation", x.tracks[k].translation, y.tracks[k].translation,
                       tol.position);
                c.keys(q + ".rotation", x.tracks[k].rotation, y.tracks[k].rotation, tol.rotation);
                c.keys(q + ".scale", x.tracks[k].scale, y.tracks[k].scale, tol.position);
            }
        }
        if (c.size(p + ".flex_tracks", x.flex_tracks.size(), y.flex_tracks.size())) {
            for (std::size_t k = 0; k < x.flex_tracks.size() && c.ok(); ++k) {
                const std::string q = fmt::format("{}/flex_tracks[{}]", p, k);
                c.eq(q + ".controller", x.flex_tracks[k].controller, y.flex_tracks[k].controller);
                c.keys(q + ".value", x.flex_tracks[k].value, y.flex_tracks[k].value, tol.weight);
            }
        }
    }
    return c.diff;
}

// --- check ---------------------------------------------------------------------------------

std::vector<std::string> check(const Model& m, std::size_t max_problems) {
    std::vector<std::string> out;
    auto problem = [&](std::string s) {
        if (out.size() < max_problems) out.push_back(std::move(s));
    };
    if (m.nodes.empty() || m.nodes[0].kind != NodeKind::model || m.nodes[0].parent != -1) {
        problem("nodes[0]: the model node must come first, without a parent");
    }
    for (std::size_t i = 1; i < m.nodes.size(); ++i) {
        const std::int32_t p = m.nodes[i].parent;
        if (p < 0 || static_cast<std::size_t>(p) >= i) {
            problem(fmt::format("nodes[{}] '{}': parent {} is not an earlier node", i,
                                m.nodes[i].name, p));
        }
        if (m.nodes[i].kind == NodeKind::model) {
            problem(fmt::format("nodes[{}] '{}': only nodes[0] is the model", i, m.nodes[i].name));
        }
    }
    const std::size_t nn = m.nodes.size();
    for (std::size_t i = 0; i < m.attachments.size(); ++i) {
        if (m.attachments[i].node >= nn)
            problem(fmt::format("attachments[{}]: node out of range", i));
    }
    for (std::size_t mi = 0; mi < m.meshes.size(); ++mi) {
        const Mesh& mesh = m.meshes[mi];
        const std::string p = fmt::format("meshes[{}] '{}'", mi, mesh.name);
        const std::size_t corners = mesh.corner_count();
        if (mesh.node >= nn) problem(p + ": node out of range");
        auto field = [&](const std::string& name, const auto& f) {
            if (!f.present()) return;
            if (f.indices.size() != corners) {
                problem(fmt::format("{}/{}: {} indices for {} corners", p, name, f.indices.size(),
                                    corners));
                return;
            }
            for (std::size_t c = 0; c < corners; ++c) {
                if (f.indices[c] >= f.values.size()) {
                    problem(fmt::format("{}/{}.indices[{}]: {} is not below {}", p, name, c,
                                        f.indices[c], f.values.size()));
                    return;
                }
            }
        };
        field("positions", mesh.positions);
        field("normals", mesh.normals);
        field("tangents", mesh.tangents);
        for (std::size_t k = 0; k < mesh.texcoords.size(); ++k) {
            field(fmt::format("texcoords[{}]", k), mesh.texcoords[k]);
        }
        for (std::size_t k = 0; k < mesh.colors.size(); ++k) {
            field(fmt::format("colors[{}]", k), mesh.colors[k]);
        }
        field("balance", mesh.balance);
        field("speed", mesh.speed);
        field("wrinkle", mesh.wrinkle);
        for (const ExtraField& e : mesh.extra) {
            if (e.components < 1 || e.components > 4 || e.values.size() % e.components != 0) {
                problem(fmt::format("{}/extra '{}': bad component count", p, e.name));
                continue;
            }
            const std::size_t n = e.values.size() / e.components;
            if (!e.indices.empty() && e.indices.size() != corners) {
                problem(fmt::format("{}/extra '{}': {} indices for {} corners", p, e.name,
                                    e.indices.size(), corners));
            }
            for (std::uint32_t x : e.indices) {
                if (x >= n) {
                    problem(fmt::format("{}/extra '{}': index {} out of range", p, e.name, x));
                    break;
                }
            }
        }
        const std::size_t slots = mesh.point_count() * mesh.skin.influences;
        if (mesh.skin.joints.size() != slots || mesh.skin.weights.size() != slots) {
            if (mesh.skin.influences != 0 || !mesh.skin.joints.empty()) {
                problem(fmt::format("{}/skin: {} joints and {} weights for {} points x {}", p,
                                    mesh.skin.joints.size(), mesh.skin.weights.size(),
                                    mesh.point_count(), mesh.skin.influences));
            }
        } else {
            for (std::size_t k = 0; k < slots; ++k) {
                if (mesh.skin.joints[k] >= nn) {
                    problem(fmt::format("{}/skin.joints[{}]: node {} out of range", p, k,
                                        mesh.skin.joints[k]));
                    break;
                }
            }
        }
        for (std::size_t f = 0; f < mesh.face_sets.size(); ++f) {
            const FaceSet& fs = mesh.face_sets[f];
            const std::string q = fmt::format("{}/face_sets[{}]", p, f);
            if (fs.material >= m.materials.size()) problem(q + ": material out of range");
            std::size_t total = 0;
            for (std::uint32_t s : fs.sizes) total += s;
            if (total != fs.corners.size()) {
                problem(
                    fmt::format("{}: sizes add up to {}, {} corners", q, total, fs.corners.size()));
            }
            for (std::uint32_t c : fs.corners) {
                if (c >= corners) {
                    problem(fmt::format("{}: corner {} out of range ({} corners)", q, c, corners));
                    break;
                }
            }
        }
        for (std::size_t s = 0; s < mesh.shapes.size(); ++s) {
            const Shape& sh = mesh.shapes[s];
            const std::string q = fmt::format("{}/shapes[{}] '{}'", p, s, sh.name);
            auto sparse = [&](const char* name, const auto& sp, std::size_t limit) {
                if (sp.indices.size() != sp.values.size()) {
                    problem(fmt::format("{}.{}: {} indices, {} values", q, name, sp.indices.size(),
                                        sp.values.size()));
                }
                for (std::uint32_t x : sp.indices) {
                    if (x >= limit) {
                        problem(fmt::format("{}.{}: index {} is not below {}", q, name, x, limit));
                        break;
                    }
                }
            };
            sparse("positions", sh.positions, mesh.positions.values.size());
            sparse("normals", sh.normals, mesh.normals.values.size());
            sparse("wrinkle", sh.wrinkle, mesh.wrinkle.values.size());
        }
    }
    for (std::size_t ci = 0; ci < m.clips.size(); ++ci) {
        const Clip& clip = m.clips[ci];
        for (const NodeTrack& t : clip.tracks) {
            if (t.node >= nn)
                problem(fmt::format("clips[{}] '{}': track node out of range", ci, clip.name));
            auto keys = [&](const char* what, const auto& k) {
                if (k.times.size() != k.values.size()) {
                    problem(
                        fmt::format("clips[{}] '{}': {} keys of node {} have {} times, {} values",
                                    ci, clip.name, what, t.node, k.times.size(), k.values.size()));
                }
            };
            keys("translation", t.translation);
            keys("rotation", t.rotation);
            keys("scale", t.scale);
        }
        for (const FlexTrack& t : clip.flex_tracks) {
            if (t.controller >= m.flex.controllers.size()) {
                problem(fmt::format("clips[{}] '{}': flex track controller out of range", ci,
                                    clip.name));
            }
        }
    }
    return out;
}

}  // namespace lk::model
