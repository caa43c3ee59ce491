#include <fmt/format.h>

#include "levelkit/vmap/vmap.hpp"

#include "levelkit/dmx/packed.hpp"
#include "mesh_tree.hpp"

namespace lk::vmap {

std::string_view to_string(NodeKind k) {
    switch (k) {
        case NodeKind::world:
            return "world";
        case NodeKind::entity:
            return "entity";
        case NodeKind::mesh:
            return "mesh";
        case NodeKind::group:
            return "group";
        case NodeKind::instance:
            return "instance";
        case NodeKind::prefab:
            return "prefab";
        case NodeKind::layer:
            return "layer";
        case NodeKind::other:
            break;
    }
    return "other";
}

NodeKind node_kind(std::string_view cls) {
    static constexpr std::pair<std::string_view, NodeKind> kinds[] = {
        {"CMapWorld", NodeKind::world},       {"CMapEntity", NodeKind::entity},
        {"CMapMesh", NodeKind::mesh},         {"CMapGroup", NodeKind::group},
        {"CMapInstance", NodeKind::instance}, {"CMapPrefab", NodeKind::prefab},
        {"CMapWorldLayer", NodeKind::layer}};
    for (const auto& [name, kind] : kinds) {
        if (name == cls) return kind;
    }
    return NodeKind::other;
}

Vec3 Transform::apply(const Vec3& local) const {
    const Vec3 scaled{local.x * scales.x, local.y * scales.y, local.z * scales.z};
    return origin + angle_matrix(angles) * scaled;
}

bool Transform::is_identity() const {
    return origin == Vec3{} && angles == Vec3{} && scales == Vec3{1, 1, 1};
}

namespace {

Vec3 vec(const dmx::Element& e, std::string_view attr, Vec3 fallback) {
    const dmx::Attribute* a = e.find(attr);
    if (!a) return fallback;
    if (const auto* v = a->value.get_if<dmx::Vector3>()) return {v->x, v->y, v->z};
    if (const auto* q = a->value.get_if<dmx::QAngle>()) return {q->x, q->y, q->z};
    return fallback;
}

// Every datamodel element has a "name" attribute, held as the element name (binary stores it in
// the element index, keyvalues2 as "name"), so an entity key "name" lives there.
void set_property(dmx::Element& props, std::string_view key, std::string_view value) {
    if (key == "name") {
        props.name = value;
    } else {
        // Attribute names are unique within an element; a repeated key keeps its last value.
        props.set(key, value);
    }
}

dmx::Vector3 to_dmx(const Vec3& v) {
    return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}

// The attributes every node has (MapBuilder::kNodeAttributes), room for `more`.
std::vector<dmx::PackAttr> node_attributes(const Transform& t, std::int32_t node_id,
                                           std::uint64_t reference, std::size_t more) {
    std::vector<dmx::PackAttr> a;
    a.reserve(11 + more);
    a.push_back(dmx::PackAttr("origin", to_dmx(t.origin)));
    a.push_back(dmx::PackAttr(
        "angles", dmx::QAngle{static_cast<float>(t.angles.x), static_cast<float>(t.angles.y),
                              static_cast<float>(t.angles.z)}));
    a.push_back(dmx::PackAttr("scales", to_dmx(t.scales)));
    a.push_back(dmx::PackAttr("nodeID", node_id));
    a.push_back(dmx::PackAttr("referenceID", reference));
    a.push_back(dmx::PackAttr::elements("children", {}));
    a.push_back(dmx::PackAttr("editorOnly", false));
    a.push_back(dmx::PackAttr("force_hidden", false));
    a.push_back(dmx::PackAttr("transformLocked", false));
    a.push_back(dmx::PackAttr("variableTargetKeys", std::span<const std::string>{}));
    a.push_back(dmx::PackAttr("variableNames", std::span<const std::string>{}));
    return a;
}

using Properties = std::vector<std::pair<std::string, std::string>>;

// What an entity-like node holds beside the node: its DmePlugList (relayPlugData), a
// DmeConnectionData per output (connectionsData) and, when it has properties, its
// EditGameClassProps (entity_properties), described: the elements, and the node's three
// attributes that refer to them. It keeps copies of the texts.
class EntityParts {
public:
    // GUIDs from `ids` in the order the parts are made; `first`: the position of the plug list
    // in the described list.
    EntityParts(IdSource& ids, const Properties* props,
                const std::vector<EntityData::Output>& outputs, std::int32_t first)
        : outputs_(outputs) {
        attrs_.reserve(4 + 7 * outputs_.size() + (props ? props->size() : 0));
        positions_.reserve(outputs_.size());
        elements_.reserve(2 + outputs_.size());
        static const std::vector<std::int32_t> none;
        std::size_t from = attrs_.size();
        attrs_.push_back(dmx::PackAttr("names", std::span<const std::string>{}));
        attrs_.push_back(dmx::PackAttr("dataTypes", none));
        attrs_.push_back(dmx::PackAttr("plugTypes", none));
        attrs_.push_back(dmx::PackAttr("descriptions", std::span<const std::string>{}));
        elements_.push_back({"DmePlugList", "", true, ids.guid(), take(from)});
        for (const EntityData::Output& o : outputs_) {
            from = attrs_.size();
            attrs_.push_back(dmx::PackAttr::text("outputName", o.output));
            // What Hammer writes for a named target.
            attrs_.push_back(dmx::PackAttr("targetType", std::int32_t{7}));
            attrs_.push_back(dmx::PackAttr::text("targetName", o.target));
            attrs_.push_back(dmx::PackAttr::text("inputName", o.input));
            attrs_.push_back(dmx::PackAttr::text("overrideParam", o.param));
            attrs_.push_back(dmx::PackAttr("delay", o.delay));
            attrs_.push_back(dmx::PackAttr("timesToFire", o.times));
            positions_.push_back(first + static_cast<std::int32_t>(elements_.size()));
            elements_.push_back({"DmeConnectionData", "", true, ids.guid(), take(from)});
        }
        node_.push_back(dmx::PackAttr::element("relayPlugData", first));
        node_.push_back(dmx::PackAttr::elements("connectionsData", positions_));
        if (!props) return;
        // Every datamodel element has a "name" attribute, held as the element name (binary
        // stores it in the element index, keyvalues2 as "name"), so an entity key "name" lives
        // there. Attribute names are unique within an element: a repeated key keeps its first
        // place and its last value.
        props_ = *props;
        std::string_view name;
        from = attrs_.size();
        for (const auto& [k, v] : props_) {
            if (k == "name") {
                name = v;
                continue;
            }
            bool repeated = false;
            for (std::size_t i = from; i < attrs_.size(); ++i) {
                if (attrs_[i].name() == k) {
                    attrs_[i] = dmx::PackAttr::named_text(k, v);
                    repeated = true;
                    break;
                }
            }
            if (!repeated) attrs_.push_back(dmx::PackAttr::named_text(k, v));
        }
        node_.push_back(dmx::PackAttr::element(
            "entity_properties", first + static_cast<std::int32_t>(elements_.size())));
        elements_.push_back({"EditGameClassProps", name, false, ids.guid(), take(from)});
    }
    EntityParts(const EntityParts&) = delete;  // its elements point into it
    EntityParts& operator=(const EntityParts&) = delete;

    std::span<const dmx::PackElement> elements() const { return elements_; }
    // relayPlugData, connectionsData and entity_properties (when there are properties).
    std::span<const dmx::PackAttr> node_attributes() const { return node_; }

private:
    std::span<const dmx::PackAttr> take(std::size_t from) const {
        return {attrs_.data() + from, attrs_.size() - from};
    }
    std::vector<EntityData::Output> outputs_;
    Properties props_;
    std::vector<dmx::PackAttr> attrs_, node_;
    std::vector<std::int32_t> positions_;
    std::vector<dmx::PackElement> elements_;
};

// A CMapEntity and its parts, described for packing.
class EntityTree final : public dmx::PackSource {
public:
    EntityTree(const dmx::Guid& id, std::vector<dmx::PackAttr> node, IdSource& ids,
               const EntityData& ent)
        : node_(std::move(node)), parts_(ids, &ent.properties, ent.outputs, 1) {
        node_.insert(node_.end(), parts_.node_attributes().begin(), parts_.node_attributes().end());
        node_.push_back(dmx::PackAttr("hitNormal", dmx::Vector3{0, 0, 1}));
        node_.push_back(dmx::PackAttr("isProceduralEntity", false));
        elements_.reserve(1 + parts_.elements().size());
        elements_.push_back({"CMapEntity", "", true, id, node_});
        elements_.insert(elements_.end(), parts_.elements().begin(), parts_.elements().end());
    }
    std::span<const dmx::PackElement> elements() const override { return elements_; }

private:
    std::vector<dmx::PackAttr> node_;
    EntityParts parts_;
    std::vector<dmx::PackElement> elements_;
};

// The defaults of a CMapMesh after the node's, as Hammer writes a fresh mesh (vmap 29).
void mesh_defaults(std::vector<dmx::PackAttr>& a) {
    a.push_back(dmx::PackAttr::literal_text("cubeMapName", ""));
    a.push_back(dmx::PackAttr::literal_text("lightGroup", ""));
    a.push_back(dmx::PackAttr("visexclude", false));
    a.push_back(dmx::PackAttr("renderwithdynamic", false));
    a.push_back(dmx::PackAttr("disableHeightDisplacement", false));
    a.push_back(dmx::PackAttr("fademindist", -1.0f));
    a.push_back(dmx::PackAttr("fademaxdist", 0.0f));
    a.push_back(dmx::PackAttr("bakelighting", true));
    a.push_back(dmx::PackAttr("precomputelightprobes", true));
    a.push_back(dmx::PackAttr("renderToCubemaps", true));
    a.push_back(dmx::PackAttr("disableShadows", false));
    a.push_back(dmx::PackAttr("smoothingAngle", 40.0f));
    a.push_back(dmx::PackAttr("tintColor", dmx::Color{255, 255, 255, 255}));
    a.push_back(dmx::PackAttr("renderAmt", std::int32_t{255}));
    a.push_back(dmx::PackAttr::literal_text("physicsType", "default"));
    a.push_back(dmx::PackAttr::literal_text("physicsGroup", ""));
    a.push_back(dmx::PackAttr::literal_text("physicsInteractsAs", ""));
    a.push_back(dmx::PackAttr::literal_text("physicsInteractsWith", ""));
    a.push_back(dmx::PackAttr::literal_text("physicsInteractsExclude", ""));
}

}  // namespace

Result<Map> Map::open(const dmx::Document& doc) {
    Map m;
    m.doc_ = &doc;
    const dmx::Element* root = doc.get(doc.root);
    if (!root) return Diagnostic::error("vmap.no-root", "the document has no root element");
    m.root = doc.root;
    auto ref = [&](std::string_view attr) {
        const auto* r = root->get<ElementRef>(attr);
        return r && doc.valid(*r) ? *r : ElementRef::null();
    };
    m.world = ref("world");
    const dmx::Element* world = doc.get(m.world);
    if (!world || world->type != "CMapWorld") {
        return Diagnostic::error("vmap.no-world", "the root's 'world' is not a CMapWorld")
            .with_path(fmt::format("{}/world", root->type.str()));
    }
    // Valve's spelling ("visbility"); the corrected one is accepted too.
    m.visibility = ref("visbility");
    if (m.visibility.is_null()) m.visibility = ref("visibility");
    m.variables = ref("mapVariables");
    m.selection_sets = ref("rootSelectionSet");
    m.default_camera = ref("defaultcamera");
    m.cameras = ref("3dcameras");

    // Depth-first over `children`, each element once (a shared or cyclic child list would
    // otherwise repeat nodes forever).
    std::vector<bool> seen(doc.size(), false);
    struct Item {
        ElementRef e;
        std::int32_t parent;
        std::uint32_t depth;
    };
    std::vector<Item> stack{{m.world, -1, 0}};
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        if (seen[static_cast<std::size_t>(it.e.index)]) continue;
        seen[static_cast<std::size_t>(it.e.index)] = true;
        const dmx::Element& e = doc[it.e];
        const auto idx = static_cast<std::int32_t>(m.nodes.size());
        m.nodes.push_back({it.e, node_kind(e.type.str()), it.parent, it.depth});
        if (m.nodes.back().kind == NodeKind::mesh)
            m.meshes.push_back(static_cast<std::uint32_t>(idx));
        if (m.nodes.back().kind == NodeKind::entity)
            m.entities.push_back(static_cast<std::uint32_t>(idx));
        if (const auto* ch = e.get<std::vector<ElementRef>>("children")) {
            for (auto c = ch->rbegin(); c != ch->rend(); ++c) {
                if (doc.valid(*c) && !doc[*c].external()) stack.push_back({*c, idx, it.depth + 1});
            }
        }
    }
    return m;
}

Transform Map::transform(ElementRef node) const {
    Transform t;
    if (const dmx::Element* e = doc_->get(node)) {
        t.origin = vec(*e, "origin", {});
        t.angles = vec(*e, "angles", {});
        t.scales = vec(*e, "scales", {1, 1, 1});
    }
    return t;
}

ElementRef Map::mesh_data(ElementRef node) const {
    const dmx::Element* e = doc_->get(node);
    const auto* r = e ? e->get<ElementRef>("meshData") : nullptr;
    const dmx::Element* m = r ? doc_->get(*r) : nullptr;
    return m && m->type == "CDmePolygonMesh" ? *r : ElementRef::null();
}

std::vector<std::pair<std::string_view, std::string_view>> Map::properties(ElementRef node) const {
    std::vector<std::pair<std::string_view, std::string_view>> out;
    const dmx::Element* e = doc_->get(node);
    const auto* r = e ? e->get<ElementRef>("entity_properties") : nullptr;
    const dmx::Element* p = r ? doc_->get(*r) : nullptr;
    if (!p) return out;
    out.reserve(p->attributes.size() + 1);
    if (!p->name.empty()) out.emplace_back("name", p->name);
    for (const dmx::Attribute& a : p->attributes) {
        if (const auto* s = a.value.get_if<std::string>()) out.emplace_back(a.name.str(), *s);
    }
    return out;
}

std::string_view Map::property(ElementRef node, std::string_view key) const {
    const dmx::Element* e = doc_->get(node);
    const auto* r = e ? e->get<ElementRef>("entity_properties") : nullptr;
    const dmx::Element* p = r ? doc_->get(*r) : nullptr;
    if (p && key == "name") return p->name;
    const auto* s = p ? p->get<std::string>(key) : nullptr;
    return s ? std::string_view(*s) : std::string_view();
}

std::vector<Connection> Map::connections(ElementRef node) const {
    std::vector<Connection> out;
    const dmx::Element* e = doc_->get(node);
    const auto* list = e ? e->get<std::vector<ElementRef>>("connectionsData") : nullptr;
    if (!list) return out;
    for (ElementRef r : *list) {
        const dmx::Element* c = doc_->get(r);
        if (!c || c->external()) continue;
        Connection k;
        auto str = [&](std::string_view a) {
            const auto* s = c->get<std::string>(a);
            return s ? std::string_view(*s) : std::string_view();
        };
        k.output = str("outputName");
        k.target = str("targetName");
        k.input = str("inputName");
        k.param = str("overrideParam");
        k.delay = c->get_or<float>("delay", 0.0f);
        k.times = c->get_or<std::int32_t>("timesToFire", -1);
        k.target_type = c->get_or<std::int32_t>("targetType", 0);
        out.push_back(k);
    }
    return out;
}

std::int32_t Map::node_id(ElementRef node) const {
    const dmx::Element* e = doc_->get(node);
    return e ? e->get_or<std::int32_t>("nodeID", -1) : -1;
}

std::vector<MeshReport> validate_meshes(const Map& map, std::size_t max_problems) {
    std::vector<MeshReport> out;
    for (std::uint32_t i : map.meshes) {
        const ElementRef node = map.nodes[i].element;
        MeshReport r;
        r.node = i;
        r.node_id = map.node_id(node);
        const ElementRef md = map.mesh_data(node);
        if (md.is_null()) {
            r.view_error = "CMapMesh has no CDmePolygonMesh meshData";
        } else if (auto v = view_mesh(map.doc(), md); !v) {
            r.view_error = v.error().message;
        } else {
            r.problems = validate_mesh(*v, max_problems);
        }
        if (!r.view_error.empty() || !r.problems.empty()) out.push_back(std::move(r));
    }
    return out;
}

// --- building ------------------------------------------------------------------------------

MapBuilder::MapBuilder(std::uint64_t seed, const BuildOptions& opt) : ids_(seed), opt_(opt) {
    doc_.header.encoding = "binary";
    doc_.header.encoding_version = 9;
    doc_.header.format = "vmap";
    doc_.header.format_version = opt.format_version;

    // The order and content follow a Hammer-saved empty vmap 29 (s1i_empty_vmap29.vmap.txt).
    // The datamodel class of the prefix element (kv2 spells it "$prefix_element$").
    doc_.prefix = doc_.add_element("DmElement", {}, ids_.guid());
    const ElementRef root = new_element("CMapRootElement");
    doc_.root = root;
    doc_[root].set("isprefab", false);
    doc_[root].set("editorbuild", opt.editor_build);
    doc_[root].set("editorversion", opt.editor_version);
    doc_[root].set("showgrid", true);
    doc_[root].set("snaprotationangle", std::int32_t{15});
    doc_[root].set("gridspacing", 64.0f);
    doc_[root].set("show3dgrid", true);
    doc_[root].set("itemFile", "");
    default_camera_ = new_element("CStoredCamera");
    doc_[default_camera_].set("position", dmx::Vector3{0, -1000, 1000});
    doc_[default_camera_].set("lookat", dmx::Vector3{0, 0, 0});
    doc_[root].set("defaultcamera", default_camera_);
    cameras_ = new_element("CStoredCameras");
    doc_[cameras_].set("activecamera", std::int32_t{-1});
    doc_[cameras_].set("cameras", std::vector<ElementRef>{});
    doc_[root].set("3dcameras", cameras_);

    world_ = add_node("CMapWorld", ElementRef::null(), {});
    doc_[world_].set("nodeID", std::int32_t{1});
    const std::vector<std::pair<std::string, std::string>> world_props{{"classname", "worldspawn"}};
    add_entity_parts(world_, &world_props, {});
    doc_[world_].set("nextDecalID", std::int32_t{0});
    doc_[world_].set("fixupEntityNames", true);
    doc_[world_].set("mapUsageType", "standard");
    doc_[root].set("world", world_);

    visibility_ = add_node("CVisibilityMgr", ElementRef::null(), {});
    doc_[visibility_].set("nodeID", std::int32_t{0});
    doc_[visibility_].set("nodes", std::vector<ElementRef>{});
    doc_[visibility_].set("hiddenFlags", std::vector<std::int32_t>{});
    doc_[root].set("visbility", visibility_);

    const ElementRef vars = new_element("CMapVariableSet");
    for (const char* a :
         {"variableNames", "variableValues", "variableTypeNames", "variableTypeParameters"}) {
        doc_[vars].set(a, std::vector<std::string>{});
    }
    doc_[vars].set("m_ChoiceGroups", std::vector<ElementRef>{});
    doc_[root].set("mapVariables", vars);

    selection_root_ = new_element("CMapSelectionSet");
    doc_[selection_root_].set("children", std::vector<ElementRef>{});
    doc_[selection_root_].set("selectionSetName", "");
    doc_[selection_root_].set("selectionSetData", ElementRef::null());
    doc_[root].set("rootSelectionSet", selection_root_);

    doc_[root].set("m_ReferencedMeshSnapshots", std::vector<ElementRef>{});
    doc_[root].set("m_bIsCordoning", false);
    doc_[root].set("m_bCordonsVisible", false);
    doc_[root].set("nodeInstanceData", std::vector<ElementRef>{});
}

ElementRef MapBuilder::new_element(std::string_view cls) {
    return new_element(doc_, cls);
}

ElementRef MapBuilder::new_element(dmx::Document& d, std::string_view cls) {
    return d.add_element(cls, {}, ids_.guid());
}

void MapBuilder::attach(ElementRef parent, ElementRef n) {
    if (parent.is_null()) return;
    dmx::Attribute* c = doc_[parent].find("children");
    if (!c) c = doc_[world_].find("children");  // a packed node: see pack_meshes
    c->value.get<std::vector<ElementRef>>().push_back(n);
}

MapBuilder::NodeIds MapBuilder::next_node_ids(ElementRef parent) {
    NodeIds n;
    n.guid = ids_.guid();
    n.node_id = parent.is_null() ? 0 : next_node_id_++;
    n.reference = parent.is_null() ? 0 : ids_.reference();
    return n;
}

ElementRef MapBuilder::add_node(std::string_view cls, ElementRef parent, const Transform& t,
                                std::size_t more_attributes) {
    const ElementRef n = add_node(doc_, cls, parent, t, more_attributes);
    attach(parent, n);
    return n;
}

ElementRef MapBuilder::add_node(dmx::Document& d, std::string_view cls, ElementRef parent,
                                const Transform& t, std::size_t more_attributes) {
    const NodeIds ids = next_node_ids(parent);
    const ElementRef n = d.add_element(cls, {}, ids.guid);
    dmx::Element& e = d[n];
    // Every element's attributes are reserved at their final count where the builder knows it:
    // grown one at a time they cost five or six allocations an element and up to twice the
    // memory.
    e.attributes.reserve(kNodeAttributes + more_attributes);
    dmx::add_attributes(e, node_attributes(t, ids.node_id, ids.reference, 0));
    return n;
}

ElementRef MapBuilder::finish_node(dmx::Document& d, ElementRef parent, ElementRef n) {
    if (&d == &doc_) {
        attach(parent, n);
        return n;
    }
    d.root = n;
    // `d` is *tree_, handed over (to the packing thread, if the packs have one).
    const ElementRef placeholder = packs_->add(doc_, std::move(tree_));
    attach(parent, placeholder);
    return placeholder;
}

void MapBuilder::add_entity_parts(ElementRef node,
                                  const std::vector<std::pair<std::string, std::string>>* props,
                                  const std::vector<EntityData::Output>& outputs) {
    add_entity_parts(doc_, node, props, outputs);
}

void MapBuilder::add_entity_parts(dmx::Document& d, ElementRef node,
                                  const std::vector<std::pair<std::string, std::string>>* props,
                                  const std::vector<EntityData::Output>& outputs) {
    const EntityParts parts(ids_, props, outputs, 0);
    std::vector<ElementRef> made;
    dmx::make_elements(d, parts.elements(), made);
    dmx::add_attributes(d[node], parts.node_attributes(), made);
}

void MapBuilder::set_world_properties(
    const std::vector<std::pair<std::string, std::string>>& props) {
    const ElementRef p = *doc_[world_].get<ElementRef>("entity_properties");
    dmx::Element& e = doc_[p];
    for (const auto& [k, v] : props) set_property(e, k, v);
    if (!e.has("classname")) e.set("classname", "worldspawn");
}

void MapBuilder::pack_meshes(dmx::PackedSubtrees* packs) {
    packs_ = packs;
}

dmx::Document& MapBuilder::packed_tree() {
    if (!tree_) tree_ = packs_->take_tree();
    tree_->clear_elements();
    tree_->header = doc_.header;
    return *tree_;
}

ElementRef MapBuilder::add_entity(ElementRef parent, const EntityData& ent, bool leaf) {
    const NodeIds ids = next_node_ids(parent);
    // relayPlugData, connectionsData, entity_properties, hitNormal, isProceduralEntity.
    auto tree = std::make_unique<EntityTree>(
        ids.guid, node_attributes(ent.transform, ids.node_id, ids.reference, 5), ids_, ent);
    return place(parent, std::move(tree), packs_ && leaf);
}

ElementRef MapBuilder::add_mesh(ElementRef parent, MeshData mesh, const Transform& t) {
    for (const std::string& m : mesh.materials) {
        if (material_set_.insert(m).second) materials_.push_back(m);
    }
    const NodeIds ids = next_node_ids(parent);
    // The 19 mesh defaults and meshData.
    std::vector<dmx::PackAttr> node = node_attributes(t, ids.node_id, ids.reference, 20);
    mesh_defaults(node);
    auto tree = std::make_unique<detail::MeshTree>(dmx::PackName("CMapMesh"), ids.guid,
                                                   std::move(node), std::move(mesh), ids_);
    return place(parent, std::move(tree), packs_ != nullptr);
}

ElementRef MapBuilder::place(ElementRef parent, std::unique_ptr<dmx::PackSource> tree, bool pack) {
    // Packed: encoded from the description (on the packing thread, if the packs have one).
    const ElementRef n =
        pack ? packs_->add(doc_, std::move(tree)) : dmx::make_elements(doc_, tree->elements());
    attach(parent, n);
    return n;
}

ElementRef MapBuilder::add_group(ElementRef parent, const Transform& t) {
    return add_node("CMapGroup", parent, t);
}

ElementRef MapBuilder::add_prefab(ElementRef parent, const PrefabData& p) {
    dmx::Document& d = packs_ ? packed_tree() : doc_;
    // relayPlugData, connectionsData and the ten prefab attributes below.
    const ElementRef n = add_node(d, "CMapPrefab", parent, p.transform, 12);
    // A prefab has plugs and connections but no entity_properties (hla_*_vmap29.vmap).
    add_entity_parts(d, n, nullptr, {});
    dmx::Element& e = d[n];
    e.set("target", ElementRef::null());
    e.set("targetMapPath", p.target_map);
    e.set("targetName", p.target_name);
    e.set("variableOverrideNames", std::vector<std::string>{});
    e.set("variableOverrideValues", std::vector<std::string>{});
    e.set("loadIfNested", true);
    e.set("loadAtRuntime", false);
    e.set("fixupEntityNames", p.fixup_names);
    e.set("displayColor", dmx::Color{110, 191, 76, 255});
    e.set("visexclude", false);
    return finish_node(d, parent, n);
}

void MapBuilder::hide(ElementRef node) {
    dmx::Element& v = doc_[visibility_];
    v.find("nodes")->value.get<std::vector<ElementRef>>().push_back(node);
    v.find("hiddenFlags")->value.get<std::vector<std::int32_t>>().push_back(1);
}

void MapBuilder::set_default_camera(const Vec3& position, const Vec3& look_at) {
    doc_[default_camera_].set("position", to_dmx(position));
    doc_[default_camera_].set("lookat", to_dmx(look_at));
}

void MapBuilder::add_camera(const Vec3& position, const Vec3& look_at) {
    const ElementRef c = new_element("CStoredCamera");
    doc_[c].set("position", to_dmx(position));
    doc_[c].set("lookat", to_dmx(look_at));
    doc_[cameras_].find("cameras")->value.get<std::vector<ElementRef>>().push_back(c);
}

void MapBuilder::set_active_camera(std::int32_t index) {
    doc_[cameras_].set("activecamera", index);
}

void MapBuilder::set_cordoning(bool cordoning) {
    doc_[doc_.root].set("m_bIsCordoning", cordoning);
}

ElementRef MapBuilder::add_selection_set(ElementRef parent, std::string_view name) {
    const ElementRef set = new_element("CMapSelectionSet");
    const ElementRef data =
        doc_.add_element("CObjectSelectionSetDataElement", "objectSelectionSetData", ids_.guid());
    doc_[data].set("selectedObjects", std::vector<ElementRef>{});
    doc_[set].set("children", std::vector<ElementRef>{});
    doc_[set].set("selectionSetName", name);
    doc_[set].set("selectionSetData", data);
    const ElementRef p = parent.is_null() ? selection_root_ : parent;
    doc_[p].find("children")->value.get<std::vector<ElementRef>>().push_back(set);
    return set;
}

void MapBuilder::select(ElementRef set, ElementRef node) {
    const ElementRef data = *doc_[set].get<ElementRef>("selectionSetData");
    doc_[data].find("selectedObjects")->value.get<std::vector<ElementRef>>().push_back(node);
}

dmx::Document MapBuilder::finish() {
    if (packs_) packs_->wait();
    doc_[doc_.prefix].set("map_asset_references", materials_);
    return std::move(doc_);
}

Result<Map> read(const dmx::Document& doc, Diagnostics& warnings, const ReadOptions&) {
    auto m = Map::open(doc);
    if (m && !m->root_is_hammer()) {
        warnings.add(Diagnostic::warning(
            "vmap.root-class", fmt::format("the root element is a {}; Hammer's is CMapRootElement",
                                           doc[doc.root].type.str())));
    }
    return m;
}

}  // namespace lk::vmap
