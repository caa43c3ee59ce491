# levelkit_add_module(<name> SOURCES ... [DEPS ...] [PRIVATE_DEPS ...])
#
# Creates the static library `levelkit_<name>` (alias `levelkit::<name>`), with the public
# headers under include/levelkit/<name>/, warnings on, and adds it to the install export set and
# to the umbrella target `levelkit::levelkit`. DEPS are other modules (by short name) or imported
# targets; modules may only depend on modules below them (see DESIGN.md).
function(levelkit_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  set(target levelkit_${name})
  add_library(${target} STATIC ${ARG_SOURCES})
  add_library(levelkit::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name} POSITION_INDEPENDENT_CODE ON)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  levelkit_warnings(${target})
  foreach(dep IN LISTS ARG_DEPS)
    if(TARGET levelkit_${dep})
      target_link_libraries(${target} PUBLIC levelkit_${dep})
    else()
      target_link_libraries(${target} PUBLIC ${dep})
    endif()
  endforeach()
  foreach(dep IN LISTS ARG_PRIVATE_DEPS)
    if(TARGET levelkit_${dep})
      target_link_libraries(${target} PRIVATE levelkit_${dep})
    else()
      target_link_libraries(${target} PRIVATE ${dep})
    endif()
  endforeach()
  target_link_libraries(levelkit INTERFACE ${target})
  if(LEVELKIT_INSTALL)
    include(GNUInstallDirs)
    install(TARGETS ${target} EXPORT levelkitTargets
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
endfunction()

function(levelkit_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic
                         -Wno-missing-field-initializers)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wshadow=local)
  else()
    target_compile_options(${target} PRIVATE -Wshadow-uncaptured-local)
  endif()
  if(LEVELKIT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
